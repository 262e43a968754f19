package clioptions

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/util/jsonpath"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

// customColumnsPrefix is kubectl's -o custom-columns=HEADER:PATH,...
const customColumnsPrefix = "custom-columns="

// ObjectPrintFlags is -o of the verbs that print API objects, as kubectl's: json, yaml, name,
// jsonpath, go-template and the rest of cli-runtime's print flags, and custom-columns. Empty
// -o is the verb's own line. Verbs that print reports keep -o table|json|yaml (CheckOutput).
type ObjectPrintFlags struct {
	Print *genericclioptions.PrintFlags
	// Table is true for the verbs whose own output is a table: -o wide adds its other columns.
	Table bool
}

// NewObjectPrintFlags is -o for a verb whose default line says operation ("created").
func NewObjectPrintFlags(operation string) *ObjectPrintFlags {
	return &ObjectPrintFlags{Print: genericclioptions.NewPrintFlags(operation).WithTypeSetter(evalv1.NewScheme())}
}

// NewTablePrintFlags is -o for a verb whose own output is a table, with -o wide.
func NewTablePrintFlags() *ObjectPrintFlags {
	f := NewObjectPrintFlags("")
	f.Table = true
	return f
}

// AddFlags adds -o, --template, --show-managed-fields and --allow-missing-template-keys.
func (f *ObjectPrintFlags) AddFlags(cmd *cobra.Command) {
	f.Print.AddFlags(cmd)
	output := cmd.Flags().Lookup("output")
	def := "one line naming the object"
	if f.Table {
		def = "a table"
	}
	output.Usage = fmt.Sprintf("output format: one of %s (default: %s)", strings.Join(f.allowedFormats(), ", "), def)
}

// IsDefault reports whether -o asks for the verb's own line.
func (f *ObjectPrintFlags) IsDefault() bool {
	return f == nil || (*f.Print.OutputFormat == "" && *f.Print.TemplatePrinterFlags.TemplateArgument == "")
}

// IsWide reports whether -o wide asks for the table with every column.
func (f *ObjectPrintFlags) IsWide() bool {
	return f != nil && f.Table && *f.Print.OutputFormat == outputWide
}

const outputWide = "wide"

func (f *ObjectPrintFlags) allowedFormats() []string {
	formats := f.Print.AllowedFormats()
	if f.Table {
		formats = append([]string{outputWide}, formats...)
	}
	return append(formats, customColumnsPrefix+"HEADER:PATH,...")
}

// ToPrinter is the printer -o asks for, or an error naming the formats there are.
func (f *ObjectPrintFlags) ToPrinter() (printers.ResourcePrinter, error) {
	if spec, ok := strings.CutPrefix(*f.Print.OutputFormat, customColumnsPrefix); ok {
		return newCustomColumnsPrinter(spec)
	}
	p, err := f.Print.ToPrinter()
	if genericclioptions.IsNoCompatiblePrinterError(err) {
		return nil, fmt.Errorf("flag -o/--output: want one of %s, got %q", strings.Join(f.allowedFormats(), ", "), *f.Print.OutputFormat)
	}
	return p, err
}

type column struct {
	header string
	path   *jsonpath.JSONPath
}

// customColumnsPrinter prints one row per object, a column per HEADER:PATH, as kubectl's
// custom-columns does: PATH is a JSONPath with or without its braces, a missing field is <none>.
type customColumnsPrinter struct {
	columns []column
}

func newCustomColumnsPrinter(spec string) (*customColumnsPrinter, error) {
	p := &customColumnsPrinter{}
	for part := range strings.SplitSeq(spec, ",") {
		header, path, ok := strings.Cut(part, ":")
		if !ok || header == "" || path == "" {
			return nil, fmt.Errorf("flag -o/--output: custom-columns: %q is not HEADER:PATH, for example custom-columns=NAME:.metadata.name,PHASE:.status.phase", part)
		}
		jp := jsonpath.New(header).AllowMissingKeys(true)
		if err := jp.Parse(relaxedJSONPath(path)); err != nil {
			return nil, fmt.Errorf("flag -o/--output: custom-columns: column %s: %w", header, err)
		}
		p.columns = append(p.columns, column{header: header, path: jp})
	}
	return p, nil
}

// relaxedJSONPath lets a column say .status.phase or status.phase for {.status.phase}.
func relaxedJSONPath(path string) string {
	if strings.HasPrefix(path, "{") {
		return path
	}
	return "{." + strings.TrimPrefix(path, ".") + "}"
}

func (p *customColumnsPrinter) PrintObj(obj runtime.Object, out io.Writer) error {
	objs := []runtime.Object{obj}
	if meta.IsListType(obj) {
		var err error
		if objs, err = meta.ExtractList(obj); err != nil {
			return err
		}
	}
	w := printers.GetNewTabWriter(out)
	headers := make([]string, len(p.columns))
	for i, c := range p.columns {
		headers[i] = c.header
	}
	fmt.Fprintln(w, strings.Join(headers, "\t"))
	for _, o := range objs {
		data, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return err
		}
		cells := make([]string, len(p.columns))
		for i, c := range p.columns {
			if cells[i], err = cell(c.path, data); err != nil {
				return fmt.Errorf("custom-columns: column %s: %w", c.header, err)
			}
		}
		fmt.Fprintln(w, strings.Join(cells, "\t"))
	}
	return w.Flush()
}

// cell is the column's values joined by commas, or <none> when the object has none.
func cell(path *jsonpath.JSONPath, data map[string]any) (string, error) {
	results, err := path.FindResults(data)
	if err != nil {
		return "", err
	}
	var values []string
	for _, r := range results {
		for _, v := range r {
			values = append(values, fmt.Sprint(v.Interface()))
		}
	}
	if len(values) == 0 {
		return "<none>", nil
	}
	return strings.Join(values, ","), nil
}
