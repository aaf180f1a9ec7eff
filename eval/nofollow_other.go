//go:build !unix

package eval

// oNoFollow makes an open fail on a link, where the system can: not here
// (readSmall's check that the file is regular is what is left).
const oNoFollow = 0
