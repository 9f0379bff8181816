package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
	"github.com/traceql/traceql/trace"
)

// progressMin is the size of the content read (decompressed) from which a
// progress bar is worth showing.
const progressMin = 100 << 20

// A progress bar on stderr for long reads: shown only when stderr is a
// terminal and the inputs are large, never in pipes or output files.
type progress struct {
	w     io.Writer
	total int64
	done  atomic.Int64
	stop  chan struct{}
	wg    sync.WaitGroup
}

// startProgress returns a running bar for reading files, or nil when none
// should be shown; tty says whether stderr is seen on a terminal.
func startProgress(stderr io.Writer, tty bool, files []string, quiet bool) *progress {
	if quiet || !tty {
		return nil
	}
	// The bar counts the files' bytes; whether it is worth showing depends
	// on the bytes decoded, which for a gzipped trace are 8-20 times more.
	var total, work int64
	for _, name := range files {
		if st, err := os.Stat(name); err == nil {
			total += st.Size()
		}
		if n, err := trace.ContentSize(name); err == nil {
			work += n
		}
	}
	if work < progressMin {
		return nil
	}
	p := &progress{w: stderr, total: total, stop: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				p.draw()
			case <-p.stop:
				fmt.Fprint(p.w, "\r\033[K") // clear the line
				return
			}
		}
	}()
	return p
}

func (p *progress) add(n int) { p.done.Add(int64(n)) }

func (p *progress) draw() {
	frac := min(1, float64(p.done.Load())/float64(p.total))
	const width = 30
	full := int(frac * width)
	// Decimal units, as everywhere else in traceql's output.
	fmt.Fprintf(p.w, "\rreading [%s%s] %3.0f %% of %s", strings.Repeat("=", full), strings.Repeat(" ", width-full),
		100*frac, report.Format(p.total, metrics.Bytes))
}

// finish removes the bar; safe on nil.
func (p *progress) finish() {
	if p == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
}
