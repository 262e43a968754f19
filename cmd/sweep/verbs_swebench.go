package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/swebenchcli"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
	"github.com/swe-sweep/sweep-operator/internal/swebench/logparse"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

func newSwebenchCmd(kube *clioptions.Cluster) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "swebench",
		Short: "Import SWE-bench predictions as a campaign, and grade, parse and report SWE-bench runs",
		Long: "SWE-bench instances become tasks graded by the built-in SWE-bench grader (docs/swebench.md):\n" +
			"import writes them and a campaign of the patch agent over the predictions; report prints the\n" +
			"run report of such a campaign in SWE-bench's schema; grade and parse work on local logs.",
	}
	cmd.AddCommand(newSwebenchImportCmd(kube), newSwebenchParseCmd(), newSwebenchGradeCmd(), newSwebenchReportCmd(kube))
	return cmd
}

func newSwebenchImportCmd(kube *clioptions.Cluster) *cobra.Command {
	o := &swebenchcli.ImportOptions{Cluster: kube}
	cmd := &cobra.Command{
		Use:   "import --instances F --predictions F -o OUT",
		Short: "Write SWE-bench instances and predictions as tasks and a SweepRun (kubectl apply -k OUT)",
		Long: "import writes OUT/kustomization.yaml with, for every instance that has a non-empty prediction:\n" +
			"a task ConfigMap (task.toml, instruction.md = the problem statement) whose agent and verifier\n" +
			"image is the instance's evaluation image, and a grader ConfigMap (instance.json, grading.json)\n" +
			"mounted only into the verifier; a Secret with its model patch keyed by task name; ConfigMap\n" +
			"NAME-import recording the dataset's ids; and SweepRun NAME of the patch agent over these\n" +
			"tasks. Every object is named after NAME, so several imports live in one namespace. Empty or\n" +
			"null patches are listed and not run. The objects carry the\n" +
			"namespace of -n (or the kubeconfig's) unless --namespace-less leaves it to kubectl apply -n.",
		Example: "  sweep swebench import --instances verified.jsonl --predictions preds.jsonl --grading 5 -o swebench/ -n evals\n" +
			"  kubectl apply --server-side -k swebench/ && sweep watch swebench -n evals && sweep swebench report swebench -n evals",
		Args: cobra.NoArgs,
		RunE: runOptions(o),
	}
	cmd.Flags().StringVar(&o.Instances, "instances", "", "SWE-bench instances (.json or .jsonl, official field names)")
	cmd.Flags().StringVar(&o.Predictions, "predictions", "", "predictions (.jsonl, a .json list, or a .json object keyed by instance id)")
	cmd.Flags().StringVar(&o.ImageTemplate, "image-template", "", "evaluation image per instance; {id} is the official image-safe id, {instance_id} the id as written (default: the instance's image, else "+swebench.DefaultImageTemplate+")")
	cmd.Flags().StringVar(&o.Grading, "grading", string(swebench.V5), "SWE-bench grading rules: 4.1 or 5")
	cmd.Flags().StringVar(&o.Score, "score", swebench.ScoreHardened, "verdict the campaign scores: "+swebench.ScoreHardened+" (what the grader captured, which the tests cannot forge) or "+swebench.ScoreOfficial+" (the official harness's verdict on the same run); both are recorded")
	cmd.Flags().Float64Var(&o.TimeoutSec, "timeout", swebench.DefaultTimeoutSec, "seconds the patch application and tests of one instance may take (a timeout is an error instance)")
	cmd.Flags().StringVar(&o.Name, "name", "swebench", "name of the SweepRun and label value of the import's objects")
	cmd.Flags().StringVar(&o.VerifierNetwork, "verifier-network", taskdef.NetworkNone, "network of the verifier, which runs the model's code: "+taskdef.NetworkNone+", or "+taskdef.NetworkPublic+" only if the evaluation needs it (the agent has none either way)")
	cmd.Flags().BoolVar(&o.NamespaceLess, "namespace-less", false, "write no namespace: choose it with kubectl apply -k OUT -n NAMESPACE")
	cmd.Flags().StringVarP(&o.OutDir, "output-dir", "o", "", "folder to write kustomization.yaml and the object files to")
	return cmd
}

func newSwebenchParseCmd() *cobra.Command {
	o := &swebenchcli.ParseOptions{}
	cmd := &cobra.Command{
		Use:   "parse --parser NAME LOG",
		Short: "Print the test → status map a SWE-bench log parser reads from a log, as JSON",
		Long: "parse reads LOG's test output (between the eval script's markers when it has them) with the\n" +
			"named parser (" + strings.Join(logparse.Names(), ", ") + ").\n" +
			"Without --grading it prints our full reading; with --grading 4.1 or 5 what that version's\n" +
			"official parser sees, which is what grading uses.",
		Example: "  sweep swebench parse --parser parse_log_pytest test-stdout.txt",
		Args:    cobra.ExactArgs(1),
		RunE:    runOptions(o),
	}
	cmd.Flags().StringVar(&o.Parser, "parser", "", "log parser name, for example parse_log_pytest")
	cmd.Flags().StringVar(&o.Grading, "grading", "", "read as this grading version's official parser does: 4.1 or 5")
	return cmd
}

func newSwebenchGradeCmd() *cobra.Command {
	o := &swebenchcli.GradeOptions{}
	cmd := &cobra.Command{
		Use:   "grade --instance F --log LOG",
		Short: "Grade an eval log of a SWE-bench instance and print its report.json",
		Long: "grade reads the log of the patch application and eval script (stdout and stderr merged, as\n" +
			"test-stdout.txt holds it) and prints the instance's report.json in SWE-bench's schema. An error\n" +
			"instance (the patch did not apply, the tests timed out) has no report:\n" +
			"grade then fails with the reason.",
		Example: "  sweep swebench grade --instance instance.json --log test-stdout.txt --grading 4.1",
		Args:    cobra.NoArgs,
		RunE:    runOptions(o),
	}
	cmd.Flags().StringVar(&o.InstanceFile, "instance", "", "the instance (.json or .jsonl; a dataset file with --id)")
	cmd.Flags().StringVar(&o.ID, "id", "", "instance id, when --instance holds more than one")
	cmd.Flags().StringVar(&o.LogFile, "log", "", "the eval log")
	cmd.Flags().StringVar(&o.Grading, "grading", string(swebench.V5), "SWE-bench grading rules: 4.1 or 5")
	cmd.Flags().StringVar(&o.Parser, "parser", "", "log parser overriding the instance's and repository's")
	return cmd
}

func newSwebenchReportCmd(kube *clioptions.Cluster) *cobra.Command {
	o := &swebenchcli.ReportOptions{Cluster: kube}
	cmd := &cobra.Command{
		Use:   "report NAME",
		Short: "Print a SWE-bench campaign's run report (SWE-bench's schema) as JSON",
		Long: "report reads SweepRun NAME's trials of one attempt and the report.json each verifier stored in\n" +
			"its <trial>-results Secret: a trial with a report is completed (resolved or unresolved), any\n" +
			"other is an error instance, as in SWE-bench. When NAME was written by `sweep swebench import`,\n" +
			"the dataset's other instances count too: without a prediction as incomplete, with an empty\n" +
			"patch as empty_patch. The counts are of the verdict the campaign scores (scored_verdict:\n" +
			"hardened unless imported with --score official); verdict_differences lists the instances whose\n" +
			"hardened and official verdicts differ, with how and why.",
		Example: "  sweep swebench report swebench -n evals > swebench.report.json",
		Args:    cobra.ExactArgs(1),
		RunE:    runOptions(o),
	}
	cmd.Flags().Int32Var(&o.Attempt, "attempt", 1, "which attempt of each task to report (SWE-bench grades one prediction per instance)")
	return cmd
}
