package main

import (
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// shardHelp is the --shard section of summarize's and export's --help.
const shardHelp = `

Many ranks over many workers (--shard K/N): worker K of N (0 ≤ K < N)
reads only its share of the files the arguments expand to, so that N
workers of a Slurm array or a Dask or Spark job read every file exactly
once. A file's share is FNV-1a (64 bit) of its key, modulo N; the key is
its path relative to the DIR argument it was found in (with /), or the
base name of a FILE argument. Workers started from any working directory,
with absolute or relative paths to the same DIR, agree, and adding files
moves no other file to another worker. Export each share to Parquet with
--table summary -o out/part-K.parquet; summarize reads those parts back:
traceql summarize --overview out/*.parquet prints the overview one
process reading every trace prints, rows in natural order of file, as a
DIR argument lists them.`

// A shard is worker K's share of N; the zero value (N = 0) takes every file.
// It is a pflag.Value, so a bad --shard is a usage error when parsed.
type shard struct{ K, N int }

func (s *shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

func (s *shard) Type() string { return "K/N" }

func (s *shard) Set(v string) error {
	ks, ns, ok := strings.Cut(v, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
		return fmt.Errorf("want K/N with 0 ≤ K < N, e.g. 3/64 (Slurm: $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)")
	}
	s.K, s.N = k, n
	return nil
}

func addShardFlag(f *pflag.FlagSet, s *shard) {
	f.Var(s, "shard", "read only worker K's share of N of the files, by a hash of each file's path under its argument (see above)")
}

// pick returns the files of the shard, in their order. files are what
// expandInputs made of args.
func (s *shard) pick(args, files []string) []string {
	if s.N == 0 {
		return files
	}
	var out []string
	for _, f := range files {
		if shardOf(shardKey(args, f), s.N) == s.K {
			out = append(out, f)
		}
	}
	return out
}

// shardOf is the shard, of n, of a key.
func shardOf(key string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64() % uint64(n))
}

// shardKey is what places a file: its path relative to the first argument
// that is a folder above it, with /, or the base name when it was named
// itself. Both are the same whatever the working directory, and whether
// the argument was absolute or relative. expandInputs lists a FILE
// argument as given and a DIR argument's files under the argument's path.
func shardKey(args []string, file string) string {
	for _, a := range args {
		if a == file {
			return filepath.Base(file)
		}
		rel, err := filepath.Rel(a, file)
		if err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(file)
}
