package hook

import (
	"os"
	"path/filepath"
)

// Install copies the running binary to dir/sweep-hook (the sweep-install init container).
func Install(self, dir string) error {
	b, err := os.ReadFile(self)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, "sweep-hook"), b, 0o755)
}
