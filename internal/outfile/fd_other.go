//go:build !unix

package outfile

import "io"

// writeFD opens path, which names a descriptor, as any file that is not
// regular.
func writeFD(path string, _ int, write func(io.Writer) error) error {
	return writeInPlace(path, write)
}
