package trace

import (
	"slices"
	"strings"
	"testing"
)

// TestFinish checks what finish adds to a freshly read trace: tables
// sorted stably, every device and stream of any device table listed once,
// known devices kept with what the file said of them.
func TestFinish(t *testing.T) {
	act := func(dev int, stream, start, end int64) Activity {
		return Activity{Device: dev, Stream: stream, Start: start, End: end}
	}
	tr := &Trace{
		Kernels: []Kernel{
			{Activity: act(0, 7, 30, 40), Name: "b"},
			{Activity: act(0, 7, 10, 20), Name: "a"},
			{Activity: act(0, 8, 30, 40), Name: "c"}, // ties with b: stays after it
			{Activity: act(0, 7, 50, 60), Name: "d"},
		},
		Memcpys: []Memcpy{{Activity: act(1, 9, 5, 6)}, {Activity: act(0, 7, 1, 2)}},
		Syncs:   []Sync{{Activity: act(-1, 0, 0, 1)}}, // any int is an id
		APICalls: []APICall{{Name: "y", Start: 5, End: 6}, {Name: "x", Start: 1, End: 9},
			{Name: "z", Start: 5, End: 6}},
	}
	got, err := finish(tr, []Device{{ID: 0, Name: "A100"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range got.Kernels {
		names = append(names, k.Name)
	}
	if want := []string{"a", "b", "c", "d"}; !slices.Equal(names, want) {
		t.Errorf("kernels %q, want %q", names, want)
	}
	names = names[:0]
	for _, c := range got.APICalls {
		names = append(names, c.Name)
	}
	if want := []string{"x", "y", "z"}; !slices.Equal(names, want) {
		t.Errorf("API calls %q, want %q", names, want)
	}
	if want := []Device{{ID: -1}, {ID: 0, Name: "A100"}, {ID: 1}}; !slices.Equal(got.Devices, want) {
		t.Errorf("devices %+v, want %+v", got.Devices, want)
	}
	if want := []Stream{{-1, 0}, {0, 7}, {0, 8}, {1, 9}}; !slices.Equal(got.Streams, want) {
		t.Errorf("streams %v, want %v", got.Streams, want)
	}
}

// TestFinishTooManyDevices: a file whose activities name more devices
// than a GPU trace can have is refused, not summarized device by device.
func TestFinishTooManyDevices(t *testing.T) {
	tr := &Trace{Source: "in.json"}
	for d := range maxDevices + 1 {
		tr.Kernels = append(tr.Kernels, Kernel{Activity: Activity{Device: d, Start: int64(d), End: int64(d)}})
	}
	_, err := finish(tr, nil, false)
	if err == nil || !strings.HasPrefix(err.Error(), "in.json: ") || !strings.Contains(err.Error(), "4097 devices") {
		t.Errorf("error %v, want one naming the file and the 4097 devices", err)
	}
}
