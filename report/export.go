package report

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// A RowWriter streams tidy rows as CSV (with a header) or JSON lines, so an
// export of millions of kernels never builds a table in memory.
type RowWriter struct {
	cols []Column
	csv  *csv.Writer
	bw   *bufio.Writer // JSON lines
	keys [][]byte      // JSON-quoted column names
	line []string
	buf  []byte // a JSON line
	pq   *parquetRows
}

// NewRowWriter starts a CSV ("csv"), JSON-lines ("json") or Parquet
// ("parquet") stream with these columns.
func NewRowWriter(w io.Writer, format string, cols []Column) (*RowWriter, error) {
	rw := &RowWriter{cols: cols, line: make([]string, len(cols))}
	switch format {
	case "parquet":
		rw.pq = newParquetRows(w, cols)
		return rw, nil
	case "csv":
		rw.csv = csv.NewWriter(w)
		head := make([]string, len(cols))
		for i, c := range cols {
			head[i] = c.Name
		}
		return rw, rw.csv.Write(head)
	case "json":
		rw.bw = bufio.NewWriterSize(w, 1<<16)
		for _, c := range cols {
			k, _ := json.Marshal(c.Name)
			rw.keys = append(rw.keys, k)
		}
		return rw, nil
	}
	return nil, fmt.Errorf("unknown row format %q", format)
}

// Write adds one row: int, int64, float64 or string values, one per column.
func (rw *RowWriter) Write(row ...any) error {
	if rw.pq != nil {
		return rw.pq.write(row)
	}
	if rw.csv != nil {
		for i, v := range row {
			rw.line[i] = Raw(v)
		}
		return rw.csv.Write(rw.line)
	}
	b := append(rw.buf[:0], '{')
	for i, v := range row {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(b, rw.keys[i]...), ':')
		switch x := v.(type) {
		case int:
			b = strconv.AppendInt(b, int64(x), 10)
		case int64:
			b = strconv.AppendInt(b, x, 10)
		case string:
			b = appendJSONString(b, x)
		default:
			b = append(b, Raw(v)...)
		}
	}
	rw.buf = append(b, "}\n"...)
	_, err := rw.bw.Write(rw.buf)
	return err
}

// appendJSONString appends s as a JSON string, as json.Marshal writes it.
// Names are mostly printable ASCII, which needs no escapes and is copied
// as it is; others go through json.Marshal.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// Flush ends the stream.
func (rw *RowWriter) Flush() error {
	if rw.pq != nil {
		return rw.pq.close()
	}
	if rw.csv != nil {
		rw.csv.Flush()
		return rw.csv.Error()
	}
	return rw.bw.Flush()
}

// exportSpecs are the columns of the tables `traceql export --table`
// writes, one row per event or group, the file and device on every row,
// times in integer ns (":t" marks text, ":f" floating point).
var exportSpecs = map[string]string{
	"kernels": "file:t device stream name:t start_ns end_ns dur_ns correlation external_id grid_x grid_y grid_z " +
		"block_x block_y block_z registers shared_mem_bytes graph_id",
	"kernel-stats": "file:t device name:t family:t count total_ns mean_ns:f min_ns max_ns share:f median_ns:f stddev_ns:f",
	"steps":        "file:t device step start_ns end_ns dur_ns kernels busy_ns idle_ns gpu_util:f source:t",
	"gaps":         "file:t device start_ns end_ns dur_ns sync_ns launch_ns other_ns class:t",
	"memcpy":       "file:t device stream kind:t src:t dst:t bytes start_ns end_ns dur_ns gbps:f correlation",
	"host-ops":     "file:t name:t count total_ns self_ns",
	"streams":      "file:t device stream kernels copies span_ns busy_ns idle_ns util:f",
	"ops":          "file:t device op:t calls kernels gpu_ns cpu_ns share:f",
	"copy-stats":   "file:t device kind:t src:t dst:t count bytes min_bytes median_bytes:f max_bytes ns gbps:f",
	"regions":      "file:t device region:t calls kernels gpu_ns cpu_ns share:f",
	"api":          "file:t name:t count total_ns mean_ns:f median_ns:f min_ns max_ns stddev_ns:f share:f",
	"ranges":       "file:t name:t count total_ns mean_ns:f median_ns:f min_ns max_ns stddev_ns:f share:f",
}

func cols(spec string) []Column {
	var out []Column
	for _, f := range strings.Fields(spec) {
		c := Column{Name: f, Unit: metrics.Count}
		if name, ok := strings.CutSuffix(f, ":t"); ok {
			c = Column{Name: name, Unit: metrics.Text}
		} else if name, ok := strings.CutSuffix(f, ":f"); ok {
			c = Column{Name: name, Unit: metrics.Count, Float: true}
		}
		out = append(out, c)
	}
	return out
}

// ExportTables lists the table names ExportColumns and Export accept.
func ExportTables() []string {
	return []string{"summary", "kernels", "kernel-stats", "steps", "gaps", "memcpy", "host", "host-ops", "streams", "api", "ranges", "ops", "regions", "copy-stats"}
}

// ExportColumns returns the columns of an export table.
func ExportColumns(table string) ([]Column, bool) {
	switch table {
	case "summary":
		return SummaryRecords(nil).Columns, true
	case "host":
		return HostRecords(nil).Columns, true
	}
	spec, ok := exportSpecs[table]
	return cols(spec), ok
}

// Export writes the rows of one table for one trace.
func Export(rw *RowWriter, table string, t *trace.Trace) error {
	file := t.Source
	switch table {
	case "summary":
		for _, row := range SummaryRecords([]metrics.Summary{metrics.Summarize(t, metrics.Options{})}).Rows {
			if err := rw.Write(row...); err != nil {
				return err
			}
		}
	case "kernels":
		for i := range t.Kernels {
			k := &t.Kernels[i]
			if err := rw.Write(file, k.Device, k.Stream, k.Name, k.Start, k.End, k.Dur(), k.Correlation, k.ExternalID,
				int64(k.Grid[0]), int64(k.Grid[1]), int64(k.Grid[2]), int64(k.Block[0]), int64(k.Block[1]), int64(k.Block[2]),
				int64(k.Registers), k.SharedMem, k.GraphID); err != nil {
				return err
			}
		}
	case "kernel-stats":
		for dev, v := range metrics.DeviceViews(t) {
			for _, s := range metrics.KernelDists(v, dev) {
				if err := rw.Write(file, dev, s.Name, metrics.Family(s.Name), s.Count, s.TotalNS, s.MeanNS, s.MinNS, s.MaxNS, s.Share,
					s.MedianNS, s.StddevNS); err != nil {
					return err
				}
			}
		}
	case "streams":
		for dev, v := range metrics.DeviceViews(t) {
			for _, st := range metrics.StreamStats(v, dev) {
				if err := rw.Write(file, dev, st.Stream, st.Kernels, st.Copies, st.SpanNS, st.BusyNS, st.IdleNS, st.Util); err != nil {
					return err
				}
			}
		}
	case "copy-stats":
		for dev, v := range metrics.DeviceViews(t) {
			for _, c := range metrics.CopyDists(v, dev) {
				if err := rw.Write(file, dev, c.Kind, c.Src, c.Dst, c.Count, c.Bytes, c.MinBytes, c.MedianBytes, c.MaxBytes, c.NS, c.GBps); err != nil {
					return err
				}
			}
		}
	case "ops", "regions":
		for dev, v := range metrics.DeviceViews(t) {
			ops, regions := metrics.Scopes(v, dev)
			if table == "regions" {
				ops = regions
			}
			for _, o := range ops {
				if err := rw.Write(file, dev, o.Name, o.Calls, o.Kernels, o.GPUNS, o.CPUNS, o.Share); err != nil {
					return err
				}
			}
		}
	case "api", "ranges":
		stats := metrics.APIStats(t)
		if table == "ranges" {
			stats = metrics.RangeStats(t)
		}
		for _, n := range stats {
			if err := rw.Write(file, n.Name, n.Count, n.TotalNS, n.MeanNS, n.MedianNS, n.MinNS, n.MaxNS, n.StdNS, n.Share); err != nil {
				return err
			}
		}
	case "steps":
		// The summary has each device's steps, found once for all devices.
		for _, d := range metrics.Summarize(t, metrics.Options{}).Devices {
			for _, s := range d.Steps {
				if err := rw.Write(file, d.Device, s.Number, s.Start, s.End, s.DurNS(), s.Kernels, s.BusyNS, s.IdleNS, s.Util, s.Source); err != nil {
					return err
				}
			}
		}
	case "gaps":
		for _, g := range metrics.ClassifyGaps(t) {
			if err := rw.Write(file, g.Device, g.Start, g.End, g.Len(), g.SyncNS, g.LaunchNS, g.OtherNS, g.Class()); err != nil {
				return err
			}
		}
	case "memcpy":
		for i := range t.Memcpys {
			m := &t.Memcpys[i]
			gbps := 0.0
			if m.Dur() > 0 {
				gbps = float64(m.Bytes) / float64(m.Dur())
			}
			if err := rw.Write(file, m.Device, m.Stream, m.Kind.String(), m.Src.String(), m.Dst.String(), m.Bytes,
				m.Start, m.End, m.Dur(), gbps, m.Correlation); err != nil {
				return err
			}
		}
	case "host", "host-ops":
		// Host-only traces (CPU, MPS): a GPU trace's summary has no host
		// side, and its lean read no ops.
		if t.HasGPUActivity() {
			return nil
		}
		s := metrics.Summarize(t, metrics.Options{})
		if table == "host" {
			return rw.Write(HostRecords([]metrics.Summary{s}).Rows[0]...)
		}
		for _, op := range s.Host.AllOps {
			if err := rw.Write(file, op.Name, op.Count, op.TotalNS, op.SelfNS); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("unknown table %q", table)
	}
	return nil
}
