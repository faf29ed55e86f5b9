package goffloadcmd

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
)

// jsonWriter appends JSON as json.MarshalIndent(v, prefix, "  ") writes it,
// without reflection: goffload list --json writes one object per code
// object, and MarshalIndent was most of its time. TestJSONWriterAgrees
// holds it to MarshalIndent's bytes.
type jsonWriter struct {
	b      []byte
	prefix string
	depth  int
	empty  bool // the innermost object or array has no member yet
}

func (w *jsonWriter) newline() {
	w.b = append(w.b, '\n')
	w.b = append(w.b, w.prefix...)
	for range w.depth {
		w.b = append(w.b, "  "...)
	}
}

// member starts the next member of the innermost object or array.
func (w *jsonWriter) member() {
	if !w.empty {
		w.b = append(w.b, ',')
	}
	w.empty = false
	w.newline()
}

func (w *jsonWriter) open(c byte) {
	w.b = append(w.b, c)
	w.depth++
	w.empty = true
}

func (w *jsonWriter) close(c byte) {
	w.depth--
	if !w.empty {
		w.newline()
	}
	w.b = append(w.b, c)
	w.empty = false
}

// key starts an object member.
func (w *jsonWriter) key(k string) {
	w.member()
	w.str(k)
	w.b = append(w.b, ": "...)
}

// str appends s as encoding/json quotes it: printable ASCII but for the
// characters it escapes is copied, anything else goes through json.Marshal.
func (w *jsonWriter) str(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			w.b = append(w.b, q...)
			return
		}
	}
	w.b = append(append(append(w.b, '"'), s...), '"')
}

func (w *jsonWriter) int(n int64) { w.b = strconv.AppendInt(w.b, n, 10) }

func (w *jsonWriter) bool(v bool) { w.b = strconv.AppendBool(w.b, v) }

func (w *jsonWriter) null() { w.b = append(w.b, "null"...) }

// float appends f as encoding/json does; the exponent forms go through it.
func (w *jsonWriter) float(f float64) {
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) || math.IsNaN(f) || math.IsInf(f, 0) {
		q, _ := json.Marshal(f)
		w.b = append(w.b, q...)
		return
	}
	w.b = strconv.AppendFloat(w.b, f, 'f', -1, 64)
}

func (w *jsonWriter) strings(ss []string) {
	w.open('[')
	for _, s := range ss {
		w.member()
		w.str(s)
	}
	w.close(']')
}

// appendJSONObject appends j as json.MarshalIndent(j, prefix, "  ") does.
func appendJSONObject(b []byte, j *jsonObject, prefix string) []byte {
	w := &jsonWriter{b: b, prefix: prefix}
	w.open('{')
	w.key("index")
	w.int(int64(j.Index))
	w.key("path")
	w.strings(j.Path)
	w.key("container")
	w.str(j.Container)
	w.key("id")
	w.str(j.ID)
	w.key("host")
	w.bool(j.Host)
	w.key("kind")
	w.str(j.Kind)
	w.key("triple")
	w.str(j.Triple)
	w.key("target_id")
	w.str(j.TargetID)
	w.key("offset")
	if j.Offset != nil {
		w.int(*j.Offset)
	} else {
		w.null()
	}
	w.key("size")
	w.int(j.Size)
	w.key("compressed")
	if c := j.Compressed; c != nil {
		w.open('{')
		w.key("format")
		w.str(c.Format)
		w.key("version")
		w.int(int64(c.Version))
		if c.Method != "" {
			w.key("method")
			w.str(c.Method)
		}
		w.key("offset")
		w.int(c.Offset)
		w.key("size")
		w.int(c.Size)
		w.key("uncompressed_size")
		w.int(c.UncompressedSize)
		w.key("inner_offset")
		w.int(c.InnerOffset)
		w.key("ratio")
		w.float(c.Ratio)
		w.close('}')
	} else {
		w.null()
	}
	if j.ImageKind != "" {
		w.key("image_kind")
		w.str(j.ImageKind)
	}
	if len(j.Strings) > 0 {
		w.key("strings")
		keys := make([]string, 0, len(j.Strings))
		for k := range j.Strings {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		w.open('{')
		for _, k := range keys {
			w.key(k)
			w.str(j.Strings[k])
		}
		w.close('}')
	}
	w.key("code")
	if c := j.Code; c != nil {
		w.open('{')
		w.key("format")
		w.str(c.Format)
		w.key("machine")
		w.str(c.Machine)
		w.key("processor")
		w.str(c.Processor)
		w.key("xnack")
		w.str(c.Xnack)
		w.key("sramecc")
		w.str(c.SRAMECC)
		w.key("code_object_version")
		w.int(int64(c.CodeObjectVersion))
		w.key("kernels")
		if c.Kernels != nil {
			w.int(int64(*c.Kernels))
		} else {
			w.null()
		}
		w.close('}')
	} else {
		w.null()
	}
	if j.Nested != 0 {
		w.key("nested")
		w.int(int64(j.Nested))
	}
	if j.Outer != nil {
		w.key("outer")
		w.int(int64(*j.Outer))
	}
	w.close('}')
	return w.b
}
