package swesweep

import (
	"fmt"
	"path"
	"strings"
)

// glob matches slash-separated paths; a "**" segment matches any number of segments, other
// segments match as in path.Match.
type glob []string

func compileGlob(pattern string) (glob, error) {
	if pattern == "" || strings.HasPrefix(pattern, "/") {
		return nil, fmt.Errorf("pattern %q must be a non-empty relative path", pattern)
	}
	g := glob(strings.Split(pattern, "/"))
	for _, seg := range g {
		if _, err := path.Match(seg, ""); err != nil {
			return nil, fmt.Errorf("pattern %q: %w", pattern, err)
		}
	}
	return g, nil
}

func (g glob) match(p string) bool { return matchSegments(g, strings.Split(p, "/")) }

func matchSegments(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if matchSegments(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// testMatcher tells test files by the bundle's test_paths.
type testMatcher []glob

func newTestMatcher(patterns []string) (testMatcher, error) {
	var m testMatcher
	for _, p := range patterns {
		g, err := compileGlob(p)
		if err != nil {
			return nil, err
		}
		m = append(m, g)
	}
	return m, nil
}

func (m testMatcher) isTest(p string) bool {
	for _, g := range m {
		if g.match(p) {
			return true
		}
	}
	return false
}
