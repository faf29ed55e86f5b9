package llvmhash

import "iter"

// This file models the bucket layout of LLVM 22's StringMap, whose iteration
// order decides the order in which clang-offload-bundler lists and unbundles
// binary-format bundles and walks its unbundle work list.
//
// The model (it reproduced the 22.1.8 bundler's list order in every trial,
// of 1 to 120 IDs): a key's hash is the low 32 bits of XXH3_64; the table
// gets 16 buckets on the first insert; a new key goes to the first
// tombstone passed, or else the first empty bucket, on the triangular probe
// sequence h, h+1, h+3, h+6, ... (mod the bucket count); a key already
// present keeps its bucket (Set replaces its value). After every insert the
// table grows to twice its size when more than three quarters of the
// buckets hold keys, or is rebuilt at the same size when at most an eighth
// of the buckets are still empty (neither key nor tombstone). Rebuilding
// visits the old buckets in index order and reinserts each live key into a
// fresh table. Erasing leaves a tombstone; the table never shrinks.
// Iteration visits the buckets in index order.

const stringMapInitialBuckets = 16

type smState uint8

const (
	smEmpty smState = iota
	smLive
	smTombstone
)

type smBucket[V any] struct {
	state smState
	hash  uint32
	key   string
	val   V
}

// StringMap is a model of LLVM 22's StringMap<V>: a map from strings whose
// iteration order is that of the LLVM container after the same sequence of
// inserts and erases. The zero value is an empty map ready to use.
type StringMap[V any] struct {
	buckets    []smBucket[V]
	items      int
	tombstones int
}

// StringMapHash is the hash LLVM 22's StringMap keeps for key: the low 32 bits
// of XXH3_64.
func StringMapHash(key string) uint32 { return uint32(XXH3_64([]byte(key))) }

// lookup returns the bucket holding key and true, or the bucket where key
// would be inserted and false. The table must not be empty.
func (m *StringMap[V]) lookup(key string, h uint32) (int, bool) {
	mask := uint32(len(m.buckets) - 1)
	b := h & mask
	tomb := -1
	for probe := uint32(1); ; probe++ {
		bk := &m.buckets[b]
		switch bk.state {
		case smEmpty:
			if tomb >= 0 {
				return tomb, false
			}
			return int(b), false
		case smTombstone:
			if tomb < 0 {
				tomb = int(b)
			}
		case smLive:
			if bk.hash == h && bk.key == key {
				return int(b), true
			}
		}
		b = (b + probe) & mask
	}
}

// find returns the bucket holding key, or -1.
func (m *StringMap[V]) find(key string) int {
	if len(m.buckets) == 0 {
		return -1
	}
	i, ok := m.lookup(key, StringMapHash(key))
	if !ok {
		return -1
	}
	return i
}

// Insert adds key with value v if key is absent and reports whether it did;
// an existing key keeps its value (LLVM's insert/try_emplace).
func (m *StringMap[V]) Insert(key string, v V) bool {
	return m.put(key, v, false)
}

// Set stores v under key. An existing key keeps its bucket, so the order is
// unchanged, and only its value is replaced (LLVM's operator[] assignment).
func (m *StringMap[V]) Set(key string, v V) {
	m.put(key, v, true)
}

func (m *StringMap[V]) put(key string, v V, replace bool) bool {
	if len(m.buckets) == 0 {
		m.buckets = make([]smBucket[V], stringMapInitialBuckets)
	}
	h := StringMapHash(key)
	i, found := m.lookup(key, h)
	if found {
		if replace {
			m.buckets[i].val = v
		}
		return false
	}
	if m.buckets[i].state == smTombstone {
		m.tombstones--
	}
	m.buckets[i] = smBucket[V]{state: smLive, hash: h, key: key, val: v}
	m.items++
	m.rehashIfNeeded()
	return true
}

func (m *StringMap[V]) rehashIfNeeded() {
	n := len(m.buckets)
	var size int
	switch {
	case m.items*4 > n*3:
		size = 2 * n
	case n-(m.items+m.tombstones) <= n/8:
		size = n
	default:
		return
	}
	nb := make([]smBucket[V], size)
	mask := uint32(size - 1)
	for _, bk := range m.buckets {
		if bk.state != smLive {
			continue
		}
		b := bk.hash & mask
		for probe := uint32(1); nb[b].state != smEmpty; probe++ {
			b = (b + probe) & mask
		}
		nb[b] = bk
	}
	m.buckets = nb
	m.tombstones = 0
}

// Get returns the value stored under key.
func (m *StringMap[V]) Get(key string) (V, bool) {
	if i := m.find(key); i >= 0 {
		return m.buckets[i].val, true
	}
	var zero V
	return zero, false
}

// Erase removes key, leaving a tombstone in its bucket, and reports whether
// it was present. The table never shrinks.
func (m *StringMap[V]) Erase(key string) bool {
	i := m.find(key)
	if i < 0 {
		return false
	}
	var zero V
	m.buckets[i] = smBucket[V]{state: smTombstone, val: zero}
	m.items--
	m.tombstones++
	return true
}

// Len returns the number of keys.
func (m *StringMap[V]) Len() int { return m.items }

// Keys returns the keys in LLVM's iteration order.
func (m *StringMap[V]) Keys() []string {
	keys := make([]string, 0, m.items)
	for k := range m.All() {
		keys = append(keys, k)
	}
	return keys
}

// All yields the keys and values in LLVM's iteration order. The map must not
// be changed during the iteration.
func (m *StringMap[V]) All() iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		for i := range m.buckets {
			bk := &m.buckets[i]
			if bk.state == smLive && !yield(bk.key, bk.val) {
				return
			}
		}
	}
}

// StringMapOrder returns the distinct keys in the iteration order of an LLVM
// 22 StringMap into which keys were inserted in the given order. A repeated
// key keeps the bucket of its first insertion.
func StringMapOrder(keys []string) []string {
	var m StringMap[struct{}]
	for _, k := range keys {
		m.Insert(k, struct{}{})
	}
	return m.Keys()
}
