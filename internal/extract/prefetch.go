package extract

import (
	"context"
	"io"
	"sync"
)

// prefetchMax bounds how far the writing pass decompresses ahead while the
// checking pass runs, so the two use both cores without memory growing
// with the archive.
const prefetchMax = 32 << 20

// prefetch decompresses a stream on its own goroutine into at most
// prefetchMax bytes of buffered chunks. Read consumes them in order.
type prefetch struct {
	ch   chan []byte
	done chan struct{}
	wg   sync.WaitGroup
	err  error // set before ch is closed
	cur  []byte
	buf  *[]byte
}

func startPrefetch(ctx context.Context, open func() (io.Reader, func(), error)) *prefetch {
	p := &prefetch{ch: make(chan []byte, prefetchMax/bufSize), done: make(chan struct{})}
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
			n, err := io.ReadFull(src, *bp)
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
				if err == io.ErrUnexpectedEOF {
					err = io.EOF
				}
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
