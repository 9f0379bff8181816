package pages

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// TestMakeAdvisesHuge checks that a slice of HugeBytes or more is advised
// for huge pages: the mapping holding its middle carries the "hg" flag in
// /proc/self/smaps. Whether the kernel then backs it with huge pages is
// its decision, and not tested.
func TestMakeAdvisesHuge(t *testing.T) {
	s := Make[byte](Options{}, 0, 4*HugeBytes)
	mid := uintptr(unsafe.Pointer(unsafe.SliceData(s))) + uintptr(len(s[:cap(s)])/2)
	flags, err := vmFlags(mid)
	if err != nil {
		t.Skipf("no smaps to read: %v", err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the mapping of a %d MiB slice has flags %q, no hg", cap(s)>>20, flags)
	}
}

// vmFlags returns the VmFlags line of the mapping in /proc/self/smaps that
// holds addr.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Count(strings.Fields(line)[0], "-") == 1 {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping holds %#x", addr)
}
