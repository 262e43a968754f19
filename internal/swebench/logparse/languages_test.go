package logparse

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLanguageParsersRegistered checks that every non-Python parser name of SWE-bench 4.1 and
// 5.0.1 (aliases included) is registered and exists in the versions that have it, and that the
// instance-reading parsers find nothing without their instance.
func TestLanguageParsersRegistered(t *testing.T) {
	in41 := []string{
		"parse_log_calypso", "parse_log_chart_js", "parse_log_marked", "parse_log_p5js", "parse_log_react_pdf",
		"parse_log_jest", "parse_log_jest_json", "parse_log_vitest", "parse_log_karma", "parse_log_tap",
		"parse_log_immutable_js", "parse_log_redis", "parse_log_jq", "parse_log_doctest", "parse_log_micropython_test",
		"parse_log_googletest", "parse_log_gotest", "parse_log_maven", "parse_log_ant", "parse_log_gradle_custom",
		"parse_log_phpunit", "parse_log_minitest", "parse_log_cucumber", "parse_log_ruby_unit",
		"parse_log_rspec_transformed_json", "parse_log_jekyll", "parse_log_cargo",
	}
	only5 := []string{
		"parse_log_bpmn_js", "parse_log_carbon", "parse_log_eslint", "parse_log_grommet", "parse_log_highlightjs",
		"parse_log_lighthouse", "parse_log_next", "parse_log_openlayers", "parse_log_prismjs", "parse_log_quarto_cli",
		"parse_log_cypress", "parse_log_emotion", "parse_plotly_js", "parse_log_prettier", "parse_log_scratch_gui",
		"parse_log_lighthouse_jest",
	}
	for _, names := range []struct {
		list []string
		in41 bool
	}{{in41, true}, {only5, false}} {
		for _, name := range names.list {
			p, err := Get(name)
			if err != nil {
				t.Errorf("Get(%q): %v", name, err)
				continue
			}
			got := []bool{p.Exists(Full), p.Exists(Official41), p.Exists(Official5)}
			if diff := cmp.Diff([]bool{true, names.in41, true}, got); diff != "" {
				t.Errorf("%s: Exists(Full, 4.1, 5) (-want +got):\n%s", name, diff)
			}
		}
	}
	if n := len(in41) + len(only5); n != len(languageParsers) {
		t.Errorf("%d names listed here, %d registered", n, len(languageParsers))
	}
	for _, name := range []string{"parse_log_jekyll", "parse_log_immutable_js", "parse_log_lighthouse"} {
		p, _ := Get(name)
		if got := p.ParseAs("PASS: x\n  ✓ y", Official5); got != nil {
			t.Errorf("%s without an instance = %v, want nil (the official parser raises)", name, got)
		}
	}
	p, _ := Get("parse_log_jest")
	if diff := cmp.Diff(Statuses{"t ": "PASSED"}, p.ParseAs("  ✓ t  (3 ms)", Official41)); diff != "" {
		t.Errorf("4.1 jest keeps the space before the duration (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Statuses{"t": "PASSED"}, p.ParseAs("  ✓ t  (3 ms)", Official5)); diff != "" {
		t.Errorf("5 jest strips the title (-want +got):\n%s", diff)
	}
}

// TestLanguageParsersWhereOfficialRaises: logs on which the official parser raises (and so are
// not in the goldens) give no results here.
func TestLanguageParsersWhereOfficialRaises(t *testing.T) {
	for name, log := range map[string]string{
		"parse_log_doctest": "<doctest><TestSuite><TestCase name=\"a\x1cb\"><SubCase name=\"s\"/></TestCase></TestSuite></doctest>",
		"parse_log_calypso": " ./node_modules/.bin/jest x\n✓ no indentation",
		"parse_log_karma":   "Starting browser Chrome\n      x\n    y\n  z\n  ✔ t",
		"parse_log_prismjs": "./node_modules/.bin/mocha tests/run.js --reporter json\n{\"passes\": [{\"fullTitle\": \"a\"}]}",
	} {
		p, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.ParseAs(log, Official5); got != nil {
			t.Errorf("%s = %v, want nil", name, got)
		}
	}
}
