//go:build !unix

package agentdir

// noFollow is not available: a lease file is opened as named.
const noFollow = 0
