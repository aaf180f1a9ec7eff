package skill

import (
	"context"
	"embed"
	"io/fs"

	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/extract"
)

// embeddedTree names a tree of an embed.FS: the FS value and the root.
type embeddedTree struct {
	fsys embed.FS
	root string
}

// fsFiles reads the tree root of fsys under the cache's rules and limits
// (rule 6) and returns its files, hashed. The tree of an embed.FS, which
// is compiled into the program and cannot change while it runs, is read
// once per Cache and remembered (rule 11); every other FS is read each
// time.
func (c *Cache) fsFiles(ctx context.Context, fsys fs.FS, root string) ([]cache.File, error) {
	e, isEmbed := fsys.(embed.FS)
	key := embeddedTree{fsys: e, root: root}
	if isEmbed {
		c.mu.Lock()
		files, ok := c.embedded[key]
		c.mu.Unlock()
		if ok {
			return files, nil
		}
	}
	read, err := extract.FS(ctx, fsys, root, nil, c.extractOptions())
	if err != nil {
		return nil, err
	}
	files := cacheFiles(read)
	if isEmbed {
		c.mu.Lock()
		if c.embedded == nil {
			c.embedded = make(map[embeddedTree][]cache.File)
		}
		c.embedded[key] = files
		c.mu.Unlock()
	}
	return files, nil
}
