//go:build !amd64

package jsonlex

const haveSkip64 = false

func skip64(p *byte, n int, inStr uint64, depth int) (int, uint64, int) {
	return 0, inStr, depth
}
