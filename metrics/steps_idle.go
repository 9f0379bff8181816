package metrics

import (
	"cmp"
	"slices"
)

// A stepIdle splits the idle time of steps by cause as the device's gaps
// are classified, gap by gap, by the device's rule: the part of a gap
// inside a step window and inside a sync is sync, the rest of that part
// launch or other as the whole gap's rest is. Step windows may reach
// before the device's first activity or after its last (host time before
// the first launch): those stretches are classified as gaps too, the
// leading one ended by the first activity, the trailing one by nothing
// (other), so each step's classes add up to its idle time; they are no
// idle time of the device.
type stepIdle struct {
	steps  []StepStat
	order  []int   // steps by start
	maxEnd []int64 // the latest end of order[:i+1]
	lo     int     // order[:lo] end before the gaps still to come
	span   Interval
	sync   []Interval // the syncs that idle the device, merged
	k      int        // sync[:k] end before the gaps still to come
}

// newStepIdle returns a splitter filling in steps' idle classes; nil,
// which does nothing, without steps.
func newStepIdle(steps []StepStat) *stepIdle {
	if len(steps) == 0 {
		return nil
	}
	s := &stepIdle{steps: steps, order: make([]int, len(steps)), maxEnd: make([]int64, len(steps))}
	for i := range steps {
		s.order[i] = i
	}
	slices.SortStableFunc(s.order, func(a, b int) int { return cmp.Compare(steps[a].Start, steps[b].Start) })
	for i, j := range s.order {
		s.maxEnd[i] = steps[j].End
		if i > 0 {
			s.maxEnd[i] = max(s.maxEnd[i], s.maxEnd[i-1])
		}
	}
	return s
}

// gaps returns the device's gaps, with the stretches of step windows
// before its first busy interval and after its last added.
func (s *stepIdle) gaps(gaps, busy []Interval) []Interval {
	if s == nil || len(busy) == 0 {
		return gaps
	}
	s.span = Interval{busy[0].Start, busy[len(busy)-1].End}
	first, last := s.steps[s.order[0]].Start, s.maxEnd[len(s.maxEnd)-1]
	if first >= s.span.Start && last <= s.span.End {
		return gaps
	}
	out := make([]Interval, 0, len(gaps)+2)
	if first < s.span.Start {
		out = append(out, Interval{first, s.span.Start})
	}
	out = append(out, gaps...)
	if last > s.span.End {
		out = append(out, Interval{s.span.End, last})
	}
	return out
}

// syncs takes the device's sync union from classifyGaps.
func (s *stepIdle) syncs(u []Interval) {
	if s != nil {
		s.sync = u
	}
}

// add splits gap g, classified, among the steps it meets, and reports
// whether g lies outside the device's span: one of the stretches gaps
// added, no idle time of the device.
func (s *stepIdle) add(g ClassifiedGap) (outside bool) {
	if s == nil {
		return false
	}
	for s.lo < len(s.order) && s.maxEnd[s.lo] <= g.Start {
		s.lo++
	}
	for s.k < len(s.sync) && s.sync[s.k].End <= g.Start {
		s.k++
	}
	for _, j := range s.order[s.lo:] {
		st := &s.steps[j]
		if st.Start >= g.End {
			break
		}
		in := Interval{max(st.Start, g.Start), min(st.End, g.End)}
		if in.Start >= in.End {
			continue
		}
		var sync int64
		for _, sy := range s.sync[s.k:] {
			if sy.Start >= in.End {
				break
			}
			sync += max(0, min(sy.End, in.End)-max(sy.Start, in.Start))
		}
		st.IdleSyncNS += sync
		if g.LaunchNS > 0 {
			st.IdleLaunchNS += in.Len() - sync
		} else {
			st.IdleOtherNS += in.Len() - sync
		}
	}
	return g.End <= s.span.Start || g.Start >= s.span.End
}
