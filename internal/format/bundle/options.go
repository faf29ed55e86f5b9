package bundle

// Defaults of Options.
const (
	// defaultMaxInflated caps each bundle a CCOB inflates to, in memory or
	// in Options.Scratch, when Options.MaxInflated is 0: 1 GiB.
	defaultMaxInflated = 1 << 30
	// defaultMaxTotal caps all that one Open, Read or Inflate inflates,
	// every CCOB and compressed OffloadBinary together, when
	// Options.MaxTotal is 0 (or MaxInflated, when that is larger): 1 GiB.
	defaultMaxTotal = defaultMaxInflated
	// defaultMaxText caps the text bundles read (into memory: text bundles
	// are searched for their markers) when Options.MaxText is 0: 1 GiB.
	defaultMaxText = 1 << 30
)

// Options control how Open, Read and Inflate read a bundle. The zero value,
// as a nil *Options, detects the format and inflates CCOBs in memory, up to
// defaultMaxInflated bytes each and defaultMaxTotal bytes in all.
type Options struct {
	// Type names the file type as clang-offload-bundler's -type does:
	// "i", "ii", "cui", "hipi" (text bundles commented "//"), "d", "s"
	// ("#"), "ll" (";"); "bc", "gch", "ast" (binary bundles); "o" (a fat
	// object, or a binary bundle where the content is no object file, as
	// LLVM reads it); "a" is read as "o", as LLVM's -list reads it. ""
	// detects the format: an object file, a binary bundle, else a text
	// bundle of the comment style whose START marker comes first.
	Type string

	// Scratch, when set, returns empty storage for one inflated bundle
	// (one per CCOB; a failed attempt's storage is closed and another
	// asked for). The package creates no files: nil keeps inflated
	// bundles in memory. Storage that is an io.Closer is closed by
	// Inflated.Close, or at once when Inflate fails.
	Scratch func() (Scratch, error)
	// MaxInflated caps each inflated bundle, and each compressed
	// OffloadBinary's inflated form (a *TooLargeError past it); 0 means
	// 1 GiB.
	MaxInflated int64
	// MaxTotal caps the sum of all one call inflates: the bundles of
	// several CCOBs back to back, and the compressed OffloadBinaries read
	// (a *TooLargeError past it). 0 means 1 GiB, or MaxInflated when that
	// is larger; math.MaxInt64 sets no cap but MaxInflated's.
	// What KeepHead keeps only the head of is not counted.
	MaxTotal int64
	// KeepHead, when positive, keeps only the first KeepHead bytes of each
	// inflated bundle, in memory, whatever Scratch says: enough to list a
	// binary bundle, whose entry table comes first, without storing its
	// payloads. Open inflates again in full when the table runs past it;
	// a caller of Inflate learns it from Inflated.Short. Entries past the
	// head cannot be read (an error that is fmterr.ErrLimit).
	KeepHead int64
	// Hash computes, for each CCOB inflated, the hash LLVM's -verbose
	// prints (CCOB.Sum). MD5 costs about as much as the inflation.
	Hash bool

	// MaxText caps text bundles, which are read into memory (a
	// *TooLargeError past it); 0 means 1 GiB.
	MaxText int64
}

// config is Options with its defaults applied.
type config struct {
	Options
	// used is what was inflated so far, counted against MaxTotal.
	used int64
}

func (o *Options) config() config {
	var c config
	if o != nil {
		c.Options = *o
	}
	if c.MaxInflated <= 0 {
		c.MaxInflated = defaultMaxInflated
	}
	if c.MaxTotal <= 0 {
		c.MaxTotal = max(defaultMaxTotal, c.MaxInflated)
	}
	if c.MaxText <= 0 {
		c.MaxText = defaultMaxText
	}
	return c
}
