package tree

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"strconv"
	"strings"
)

// A wheel's or installed package's RECORD lists each file as
// "path,sha256=<urlsafe base64, no padding>,<size>" (PEP 376/627). Both
// the wheel prune and the in-place prune keep it true through these two.

// recordEntry is the hash and size columns of a RECORD line.
func recordEntry(sum []byte, size int64) string {
	return "sha256=" + base64.RawURLEncoding.EncodeToString(sum) + "," + strconv.FormatInt(size, 10)
}

// rewriteRecord returns RECORD's text with the lines of changed files
// given the new hash and size and those of removed files left out.
// changed maps a line's path column, as key(path) gives it, to a
// recordEntry, or to "" for a removed file. touched reports whether any
// line was changed or removed.
func rewriteRecord(data []byte, key func(path string) string, changed map[string]string) (out []byte, touched bool, err error) {
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, false, err
	}
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	for _, row := range rows {
		if len(row) == 0 {
			continue
		}
		if v, ok := changed[key(row[0])]; ok {
			touched = true
			if v == "" {
				continue
			}
			hash, size, _ := strings.Cut(v, ",")
			row = []string{row[0], hash, size}
		}
		if err := cw.Write(row); err != nil {
			return nil, false, err
		}
	}
	cw.Flush()
	return b.Bytes(), touched, cw.Error()
}
