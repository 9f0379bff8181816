package metrics

// A Col is one column of a table of rows R: the device metrics
// (Column, rows DeviceSummary), a run's host side (HostColumn, rows
// Summary), the compiled frames (FrameColumn, rows FrameRow) and whatif's
// projections (ProjectionColumn, rows Projection). A column
// is declared once, as a keyed literal, with everything every output
// needs: CSV, JSON and Parquet take Name, Kind and Empty; text tables
// Label and Unit; `--help` Doc; the displays what Show, Row, Overview and
// Headline say. Adding a column is adding its literal (and its test).
type Col[R any] struct {
	Name  string // in CSV and JSON
	Label string // for people
	Unit  Unit
	Kind  Kind // the Go type of Value's results
	// Steps says how a device column's value grows with the steps
	// measured: Adds, a total that per step is divided by them; Holds, a
	// size of one thing, a rate or ratio, a clock reading, a count of
	// distinct things. TestPerStepClassified refuses a count, time, byte
	// or FLOP column of the devices that says neither.
	Steps OverSteps
	Doc   string
	Value func(*R) any // int, int64, float64 or string, as Kind says
	// Empty says when the column has no value on a row: a mean of no
	// kernels, a bandwidth of no copies. It is then empty in CSV, null in
	// JSON and Parquet and "–" in text, never a 0 that would bias a mean.
	Empty Empty[R]
	// Tiny, when set, picks the rows whose value rests on too little to
	// mean what the column says: a bandwidth of copies of a few bytes
	// (CopyStat.Tiny) or of none. A default table of runs leaves the
	// column out when every run's is.
	Tiny func(*R) bool
	// Spread names the per-step quantity of diff (StepDelta.Metric) whose
	// spread over steps tells whether a change of the column is more than
	// noise (Gate); "" none.
	Spread string
	// Show is where the column shows besides --help.
	Show Place
	// Row, Overview and Headline rank the column in the three displays
	// whose orders are not the definitions' (the records'): no one order
	// of the definitions gives those three and the records' at once (see
	// ARCHITECTURE.md, "A metric").
	//
	// Row is the column's place in the reading order of summarize --all's
	// metric table and diff's rows (what ran, the timeline, why it idled,
	// launches, steps), from 1; 0: after those, in definition order.
	Row int
	// Overview is its place among the overview's columns (summarize of
	// several traces), from 1; 0: not there. OverviewIf names a count
	// column: the column is blank for a GPU where that count is 0, and
	// left out when it is 0 on every GPU.
	Overview   int
	OverviewIf string
	// Note is what the overview says of the GPU with the column's lowest
	// value; none when Note.Lowest is "".
	Note OverviewNote
	// Headline is its place among compare's default columns, from 1; 0:
	// not there.
	Headline int
}

// An OverviewNote is the overview's note on the GPU with a column's
// lowest value, said when three GPUs or more have one: "lowest GPU
// utilization: run.json GPU 3, 12.0 % (median 80.1 %)".
type OverviewNote struct {
	Lowest string // what the note calls that value
	// Straggler, when set, says the note only of the ranks of one job,
	// where the lowest stands apart (ColumnStats.Straggler), ending it
	// with these words.
	Straggler string
}

// Kind is the Go type of a column's values.
type Kind uint8

// Kinds.
const (
	KindInt   Kind = iota + 1 // int or int64
	KindFloat                 // float64
	KindText                  // string
)

// OverSteps is how a column's value grows with the steps a device
// measured (DeviceSummary.PerStep).
type OverSteps uint8

// How a value grows with the steps.
const (
	Adds  OverSteps = iota + 1 // a total: kernels, time, bytes, FLOPs
	Holds                      // not a total: shown as it is per step too
)

// An Empty says when a column has no value: never (Never) or on the rows
// a function picks (When). Its zero value is no rule at all, which
// TestColumnsDeclared refuses.
type Empty[R any] struct {
	when  func(*R) bool
	never bool
}

// Never is the rule of a column that always has a value.
func Never[R any]() Empty[R] { return Empty[R]{never: true} }

// When is the rule of a column that has no value on the rows f picks.
func When[R any](f func(*R) bool) Empty[R] { return Empty[R]{when: f} }

// Declared reports whether the rule was given.
func (e Empty[R]) Declared() bool { return e.never || e.when != nil }

// Place is a set of the places a column shows.
type Place uint16

// Places.
const (
	// Records: a column of the machine-readable rows (CSV, JSON,
	// Parquet; summarize, export --table summary, compare; whatif's rows).
	Records Place = 1 << iota
	// Compared: a measure that diff and compare put side by side, not a
	// name, a clock reading or a verdict's words.
	Compared
	// EveryMetric: a row of summarize --all's metric table.
	EveryMetric
	// CompileBlock: a row of summarize's torch.compile block.
	CompileBlock
	// KeptAtZero: text tables keep the row when it is zero everywhere (a
	// 0-ns kernel is worth seeing); others then only add noise.
	KeptAtZero
	// GivesWay: in compare's rows layout, a headline column left out
	// first when the terminal is narrower than the table.
	GivesWay
	// PlotHeadline: a bar of compare --plot's headline metrics.
	PlotHeadline
	// FrameTable: a column of the compiled-frames table (FrameColumn).
	FrameTable
	// FrameNotes: said in the compiled-frames table's notes, too long
	// for a column.
	FrameNotes
)

// Get returns the column's value on r, or nil when it has none; of a
// device, per step when d.PerStep says so and the column Adds up over
// steps.
func (c Col[R]) Get(r *R) any {
	if c.Empty.when != nil && c.Empty.when(r) {
		return nil
	}
	if d, ok := any(r).(*DeviceSummary); ok && d.PerStep > 0 && c.Steps == Adds {
		return perStep(c.Value(r), d.PerStep)
	}
	return c.Value(r)
}

// Nullable reports whether some rows may have no value.
func (c Col[R]) Nullable() bool { return c.Empty.when != nil }

// Float reports whether the column's values are float64.
func (c Col[R]) Float() bool { return c.Kind == KindFloat }

// Column is a per-device metric, a column of summarize's rows. Columns()
// is the one place they are defined.
type Column = Col[DeviceSummary]

// HostColumn is a metric of a run's host side, what a run without GPU
// activity reports in place of the device metrics (CSV and JSON rows of
// host-only runs, compare and diff of them).
type HostColumn = Col[Summary]

// FrameColumn is a column of the compiled-frames table that summarize
// --compile-log shows (CompileJoin): a row per compile of a frame, "F/R".
type FrameColumn = Col[FrameRow]

// FrameRow is the ith frame of a compile join, on device D (nil: the
// trace has no GPU activity, the kernel columns have no value).
type FrameRow struct {
	J *CompileJoin
	D *FrameDevice
	I int
}

// Shown returns the columns that show in place p, in definition order.
func Shown[R any](cols []Col[R], p Place) []Col[R] {
	var out []Col[R]
	for _, c := range cols {
		if c.Show&p != 0 {
			out = append(out, c)
		}
	}
	return out
}

// Ranked returns the columns with a place in a display (rank > 0), in
// that order; the rank of each is rank(c).
func Ranked[R any](cols []Col[R], rank func(Col[R]) int) []Col[R] {
	n := 0
	for _, c := range cols {
		n = max(n, rank(c))
	}
	slots := make([]*Col[R], n+1)
	for i := range cols {
		if r := rank(cols[i]); r > 0 {
			slots[r] = &cols[i]
		}
	}
	var out []Col[R]
	for _, c := range slots {
		if c != nil {
			out = append(out, *c)
		}
	}
	return out
}

// ColumnNamed returns the column of cols named name.
func ColumnNamed[R any](cols []Col[R], name string) (Col[R], bool) {
	for _, c := range cols {
		if c.Name == name {
			return c, true
		}
	}
	return Col[R]{}, false
}

// Names are the names of cols, in their order.
func Names[R any](cols []Col[R]) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}
