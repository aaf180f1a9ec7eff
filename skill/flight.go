package skill

// flight is a tree being staged by one materialization, which others of
// the same tree wait for (rule 3 of the package doc).
type flight struct {
	done        chan struct{} // closed once the fields below are set
	dir, digest string        // the tree published
	err         error         // why none was
}

// join returns the flight of the tree digest, and whether the caller is
// its first, which stages the tree and lands the flight: a new flight
// when none is under way.
func (c *Cache) join(digest string) (f *flight, first bool) {
	c.flightMu.Lock()
	defer c.flightMu.Unlock()
	if f, ok := c.flights[digest]; ok {
		return f, false
	}
	if c.flights == nil {
		c.flights = make(map[string]*flight)
	}
	f = &flight{done: make(chan struct{})}
	c.flights[digest] = f
	return f, true
}

// land stages the tree of flight f with stage, tells those waiting what
// it published (also when stage panics), and returns that.
func (c *Cache) land(digest string, f *flight, stage func() (string, string, error)) (dir, got string, err error) {
	defer func() {
		c.flightMu.Lock()
		delete(c.flights, digest)
		c.flightMu.Unlock()
		f.dir, f.digest, f.err = dir, got, err
		if f.dir == "" && f.err == nil {
			f.err = errFlightAborted // stage panicked
		}
		close(f.done)
	}()
	return stage()
}
