package trace

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/trace/internal/blocks"
)

// dropMemoOptions are the reads whose drops differ: flows and other
// categories only, polls too, and cpu_ops too.
var dropMemoOptions = []Options{{Needs: &Needs{Stacks: true, Ops: true, Polls: true}}, {Needs: &Needs{Stacks: true}}, {Needs: &Needs{}}, {Needs: &Needs{Op: "aten::mm"}}}

// A decoded pass is what one pass of decodeEvents read.
type decoded struct {
	stop         int
	st           blocks.State
	events, lean int
	warnings     []string
	err          string
	records      Trace
}

// decodeEvents decodes the events in array (the events array's content
// after '[') twice over with one decoder, so that its memos have learned
// from them, with or without the memo of dropped events' prefixes. It
// returns what each pass read, and how many prefixes the memo holds at the
// end.
func decodeEvents(array []byte, o Options, memo bool) (_ [2]decoded, prefixes int) {
	dec := newEventDecoder(&input{opts: o, workers: NewWorkers(1)})
	if !memo {
		dec.drops = nil
	}
	var out [2]decoded
	for k := range out {
		n, st, p := dec.Decode(array, 0, blocks.First)
		out[k] = decoded{stop: n, st: st, events: p.n, lean: p.leanSkipped, warnings: p.warn.lines(),
			records: Trace{Kernels: orNil(p.t.Kernels), Memcpys: orNil(p.t.Memcpys), Memsets: orNil(p.t.Memsets),
				Syncs: orNil(p.t.Syncs), APICalls: orNil(p.t.APICalls), Ops: orNil(p.t.Ops)}}
		if p.err != nil {
			out[k].err = fmt.Sprintf("at %d: %s", p.err.off, p.err.msg(p.err.index))
		}
	}
	if memo {
		prefixes = dec.drops.Len()
	}
	return out, prefixes
}

// orNil is s, or nil when empty: a recycled part's tables are empty, not nil.
func orNil[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// FuzzDropMemo holds an events array read the same with the memo of
// dropped events' prefixes as without it: the same records, counts, stop
// and errors.
func FuzzDropMemo(f *testing.F) {
	f.Add([]byte(`{"ph": "s", "id": 1, "ts": 5, "cat": "ac2g"}, {"ph": "f", "id": 1, "ts": 6, "cat": "ac2g", "bp": "e"}, {"ph": "s", "id": 2, "ts": 7}, {"ph": "f", "id": 2, "ts": 8, "bp": "e"}, {"ph": "ff", "id": 3}, {"ph": "f"}, {"ph": "f", "id": [}]`))
	f.Add([]byte(`{"ph": "X", "cat": "cuda_runtime", "name": "cudaEventQuery", "pid": 1, "tid": 1, "ts": 1, "dur": 1}, {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventQuery", "pid": 1, "tid": 1, "ts": 2, "dur": 1, "args": {"correlation": 4}}, {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventQueryX", "pid": 1, "tid": 1, "ts": 3, "dur": 1}, {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventQuery", "ts": 4, "dur": }, {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventQuery", "ts": 5`))
	f.Add([]byte(`{"ph": "X", "cat": "python_function", "name": "f", "ts": 1, "dur": 2}, {"ph": "X", "cat": "python_function", "name": "g", "ts": 2, "dur": 1}, {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 2}, {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 3, "dur": 2}, {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "ts": 0, "dur": 9}, {"ph": "X", "cat": "[memory]", "name": "m"}, {"ph": "X", "cat": "[memory]", "name": "m"}, {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 16, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 9}}]`))
	f.Add([]byte("{\"ph\":\"X\",\"name\":\"cuEventQuery\",\"cat\":\"cuda_driver\",\"ts\":1},{\"ph\":\"X\",\"name\":\"cuEventQuery\",\"cat\":\"cuda_driver\",\"ts\":2},{\"ph\":\"X\",\"name\":\"cuEventQuery\",\"cat\":\"cuda_driver\x01\"},{\"ph\":\"X\",\"cat\":\"[memory]\",\"pid\":NaN},{\"ph\":\"X\",\"cat\":\"[memory]\",\"pid\":NaN}]"))
	f.Add([]byte(`{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1}, {"ph": "X", "cat": "cpu_op", "name": "Profiler\u0053tep#2", "ts": 2, "dur": 1}, {"ph": "X", "cat": "cpu_op", "name": "b\u0001"}, {"ph": "X", "cat": "cpu_op", "name": 5}, {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 1}, {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#3", "ts": 1, "dur": 2}, {"ph": "X", "cat": "cpu_op", "name" : "d"}, {"ph": "X", "cat": "cpu_op", "name": "e", "args": {]}, {"ph": "X", "cat": "cpu_op", "name": "c`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, o := range dropMemoOptions {
			without, _ := decodeEvents(data, o, false)
			if with, _ := decodeEvents(data, o, true); !reflect.DeepEqual(without, with) {
				t.Fatalf("%+v: without the memo:\n%+v\nwith it:\n%+v", o, without, with)
			}
		}
	})
}

// TestDropMemo: every shared Kineto and HTA trace is read the same with
// the memo of dropped events' prefixes as without it, and the memo is used.
func TestDropMemo(t *testing.T) {
	dir := shared.Traces(t)
	traces, learned := 0, 0
	for _, sub := range []string{"kineto", "hta"} {
		filepath.WalkDir(filepath.Join(dir, sub), func(p string, e os.DirEntry, err error) error {
			if err != nil || !strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, ".json.gz") {
				return nil
			}
			data := gunzipFile(t, p)
			k := bytes.Index(data, []byte(`"traceEvents"`))
			if k < 0 {
				return nil
			}
			array := data[k+bytes.IndexByte(data[k:], '[')+1:]
			for _, o := range dropMemoOptions {
				without, _ := decodeEvents(array, o, false)
				with, prefixes := decodeEvents(array, o, true)
				if !reflect.DeepEqual(without, with) {
					t.Errorf("%s, %+v: read differently with the memo of dropped prefixes", p, o)
				}
				if prefixes > 0 {
					learned++
				}
			}
			traces++
			return nil
		})
	}
	if traces == 0 || learned == 0 {
		t.Errorf("%d traces read, the memo learned in %d reads: want some", traces, learned)
	}
}
