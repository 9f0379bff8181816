package metrics

import (
	"fmt"
	"strings"
)

// A copyRec is one memcpy of the device as the exposed-copy rule needs
// it, kept on the summary's pass over the copies; the copies are few
// beside the kernels.
type copyRec struct {
	Interval
	bytes    int64
	class    int // ClassH2D, ClassD2H or ClassOtherCopy
	pageable bool
}

// exposedCopies are the copies the time split finds exposed: run, for at
// least part of their time, with no kernel beside them.
type exposedCopies struct {
	counted                  // copies exposed at least in part, their bytes; ns is the exposed copy time
	byClass  [NumClasses]int // exposed copies by direction
	pageable [NumClasses]int // of them, copies to or from pageable memory, by direction
}

// exposeCopies finds which of recs the exposed intervals by class (ex, from
// exposedIntervals) leave exposed: a copy is exposed when any of its time
// lies in the exposed time of a copy class, that is when at some moment
// it runs and no kernel does (a D2H copy under an H2D one is exposed too,
// though the split gives that time to H2D).
func exposeCopies(recs []copyRec, ex *[NumClasses][]Interval) exposedCopies {
	var e exposedCopies
	e.ns = length(ex[ClassH2D]) + length(ex[ClassD2H]) + length(ex[ClassOtherCopy])
	if e.ns == 0 {
		return e
	}
	for _, r := range recs {
		if overlapLen(ex[ClassH2D], r.Interval)+overlapLen(ex[ClassD2H], r.Interval)+overlapLen(ex[ClassOtherCopy], r.Interval) == 0 {
			continue
		}
		e.n++
		e.bytes += r.bytes
		e.byClass[r.class]++
		if r.pageable {
			e.pageable[r.class]++
		}
	}
	return e
}

// exposedCopyFinding is the exposed-copy finding of d, whose time split
// is done, from the copies e the split leaves exposed; ok is false when
// the exposed copy time is under 1 % of the span.
func exposedCopyFinding(d *DeviceSummary, e exposedCopies) (Finding, bool) {
	if e.ns == 0 || severityOf(e.ns, d.SpanNS) == Info {
		return Finding{}, false
	}
	c := d.Classes
	var dirs []string
	top, topNS := ClassH2D, int64(-1)
	for _, k := range []int{ClassH2D, ClassD2H, ClassOtherCopy} {
		if c[k] == 0 {
			continue
		}
		if c[k] > topNS {
			top, topNS = k, c[k]
		}
		dirs = append(dirs, fmt.Sprintf("%s %s in %s", ClassNames[k], fmtDur(c[k]), Plural(e.byClass[k], "copies")))
	}
	ev := fmt.Sprintf("%s of the span; %s", ShareText(e.ns, d.SpanNS), strings.Join(dirs, ", "))
	if l := LinkText(d); l != "" {
		ev += "; " + l
	}
	if p := e.pageable[top]; p > 0 {
		ev += fmt.Sprintf("; %d of the %s pageable", p, Plural(e.byClass[top], ClassNames[top]+" copies"))
	}
	return Finding{Rule: "exposed-copy", Count: e.n, TimeNS: e.ns, Bytes: e.bytes, SavingsNS: e.ns, HasSavings: true,
		Evidence: ev, Fix: exposedCopyFix(top, e.pageable[top] > 0)}, true
}

// exposedCopyFix says how to take the copies of class top, the exposed
// direction of most time, off the GPU's critical path: pinned memory
// first when some of them are pageable (a pageable copy cannot overlap anything),
// then a copy on a side stream beside the kernels.
func exposedCopyFix(top int, pageable bool) string {
	switch {
	case top == ClassOtherCopy:
		return "copy on a side stream while kernels run, or copy less: device-to-device copies often come from .contiguous(), torch.cat or dtype casts"
	case pageable && top == ClassH2D:
		return "pin the host memory (DataLoader(pin_memory=True), tensor.pin_memory()) and copy the next batch with .to(device, non_blocking=True) on a side stream while this one computes"
	case pageable:
		return "copy into pinned host memory (a preallocated pinned buffer, .copy_(x, non_blocking=True)) on a side stream, and synchronize only where the values are needed"
	case top == ClassH2D:
		return "the host memory is pinned: prefetch the next batch on a side stream (torch.cuda.Stream, non_blocking=True) while this one computes, or move fewer bytes"
	}
	return "the host memory is pinned: copy results back on a side stream while the next kernels run (non_blocking=True, an event to wait on), or move fewer bytes"
}
