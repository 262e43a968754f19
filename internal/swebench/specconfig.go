package swebench

import (
	"fmt"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/swebench/specs"
)

// SpecGradingConfig is what the official specs say for the instance's repository and version,
// as grading.json's fields (GradingVersion set, the rest of the caller's choosing left zero),
// so that the grader runs the eval script the official harness of version v runs:
//
//   - a Python repository: the version's test command (to which the directives are added), its
//     eval_commands (Django's en_US.UTF-8 locale, environment variables) and its install (the
//     reinstall on the patched tree that compiled code needs);
//   - any other language: the common script (no conda environment, the test patch applied
//     with --reject, the version's build commands after it, its test commands without
//     directives); its install and pre_install are image-build steps, not eval steps.
//
// pre_install never is part of an official eval script (it runs when the image is built). A 5.x
// instance with its own eval_script needs no spec: the script is the dataset's. A repository no
// official map names is refused with the list of known ones, unless the instance names its own
// log_parser (a dataset of one's own); the error names the instance and the field. carried is
// false when there is no spec to carry (an own eval_script, or a version v4.1.0's specs lack):
// the grader then runs DefaultTestCommand.
func SpecGradingConfig(inst Instance, v GradingVersion) (cfg GradingConfig, carried bool, err error) {
	cfg = GradingConfig{GradingVersion: string(v)}
	repo, _ := specs.Lookup(inst.Repo)
	if !specs.Known(inst.Repo) && inst.LogParser == "" {
		return cfg, false, &specs.UnknownRepoError{InstanceID: inst.InstanceID, Repo: inst.Repo}
	}
	if v == V5 && inst.EvalScript != "" {
		return cfg, false, nil
	}
	spec, ok := repo.Versions[inst.Version]
	if !ok {
		return cfg, false, nil
	}
	if len(spec.TestCmd) == 0 {
		return cfg, false, fmt.Errorf("instance %s: %s %s has no test_cmd in %s", inst.InstanceID, inst.Repo, inst.Version, spec.From)
	}
	cfg.Spec = fmt.Sprintf("%s %s, %s", inst.Repo, inst.Version, spec.From)
	if repo.Ext == specs.ExtPython {
		cfg.TestCommand = spec.TestCmd[0]
		cfg.EvalCommands = spec.EvalCommands
		cfg.Install = strings.Join(spec.Install, "\n")
		cfg.PytestPlugins, cfg.ReinstallNetwork = spec.PytestPlugins, spec.ReinstallNetwork
		return cfg, true, nil
	}
	none := []string{}
	cfg.Script = ScriptCommon
	cfg.TestCommand = strings.Join(spec.TestCmd, "\n")
	cfg.Directives, cfg.Setup = &none, &none
	cfg.Build = spec.Build
	return cfg, true, nil
}
