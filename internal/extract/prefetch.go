package extract

import (
	"context"
	"io"
	"sync"
)

// prefetchChunks bounds how many chunks the decompressing goroutine may
// run ahead of its reader, so memory does not grow with the archive.
const prefetchChunks = 16

// prefetch decompresses a stream on its own goroutine into a few buffered
// chunks. Read consumes them in order, first copying each whole chunk to
// sink when there is one.
type prefetch struct {
	ch   chan []byte
	done chan struct{}
	wg   sync.WaitGroup
	err  error // set before ch is closed
	cur  []byte
	buf  *[]byte
	sink io.Writer
}

func startPrefetch(ctx context.Context, open func() (io.Reader, func(), error), sink io.Writer) *prefetch {
	p := &prefetch{ch: make(chan []byte, prefetchChunks), done: make(chan struct{}), sink: sink}
	p.wg.Go(func() {
		defer close(p.ch)
		src, closeSrc, err := open()
		if err != nil {
			p.err = err
			return
		}
		defer closeSrc()
		for {
			bp := bufPool.Get().(*[]byte)
			n, err := fill(src, *bp)
			if n > 0 {
				select {
				case p.ch <- (*bp)[:n]:
				case <-p.done:
					bufPool.Put(bp)
					return
				case <-ctx.Done():
					bufPool.Put(bp)
					p.err = ctx.Err()
					return
				}
			} else {
				bufPool.Put(bp)
			}
			if err != nil {
				p.err = err
				return
			}
		}
	})
	return p
}

// Read returns the buffered bytes in order, then the stream's end.
func (p *prefetch) Read(b []byte) (int, error) {
	for len(p.cur) == 0 {
		p.release()
		c, ok := <-p.ch
		if !ok {
			return 0, p.err
		}
		p.cur = c
		full := c[:cap(c)]
		p.buf = &full
		if p.sink != nil {
			if _, err := p.sink.Write(c); err != nil {
				p.cur = nil
				return 0, err
			}
		}
	}
	n := copy(b, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}

func (p *prefetch) release() {
	if p.buf != nil {
		bufPool.Put(p.buf)
		p.buf = nil
	}
}

// stop ends the goroutine and returns its buffers.
func (p *prefetch) stop() {
	close(p.done)
	for c := range p.ch {
		full := c[:cap(c)]
		bufPool.Put(&full)
	}
	p.wg.Wait()
	p.release()
}

// fill reads into b until it is full or r fails, returning r's own error
// (io.EOF at the end) unlike io.ReadFull, which would turn a source's
// io.ErrUnexpectedEOF into a short read.
func fill(r io.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
