//go:build unix

package outfile

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// writeFD writes to a duplicate of descriptor fd, which path names.
func writeFD(path string, fd int, write func(io.Writer) error) error {
	d, err := syscall.Dup(fd)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	syscall.CloseOnExec(d)
	return writeClose(path, os.NewFile(uintptr(d), path), write)
}
