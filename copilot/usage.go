package copilot

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/agentadaptor/agentadaptor/driver"
)

// maxEventLine is the longest line of a session's events.jsonl the driver
// reads; a longer one (a large system message) is skipped, as it cannot
// be a usage record.
const maxEventLine = 1 << 20

// sessionUsage adds up the token usage of the session.usage_record lines
// of a session's events.jsonl at path written since the session last
// started or resumed: the run's own usage. It returns nil when the run
// recorded none.
func sessionUsage(path string) (*driver.Usage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var u *driver.Usage
	for {
		line, err := readLine(r)
		if len(line) > 0 {
			var ev struct {
				Type string `json:"type"`
				Data struct {
					Usage struct {
						InputTokens     int64 `json:"inputTokens"`
						OutputTokens    int64 `json:"outputTokens"`
						CacheReadTokens int64 `json:"cacheReadTokens"`
						CacheWrite      int64 `json:"cacheWriteTokens"`
					} `json:"usage"`
				} `json:"data"`
			}
			if json.Unmarshal(line, &ev) == nil {
				switch ev.Type {
				case "session.start", "session.resume":
					u = nil
				case "session.usage_record":
					if u == nil {
						u = &driver.Usage{}
					}
					s := ev.Data.Usage
					u.InputTokens += s.InputTokens
					u.OutputTokens += s.OutputTokens
					u.CacheReadInputTokens += s.CacheReadTokens
					u.CacheCreationInputTokens += s.CacheWrite
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return u, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// readLine reads the next line of r, nil for one longer than
// maxEventLine.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) <= maxEventLine {
			line = append(line, chunk...)
		} else {
			line = line[:0:0]
			line = append(line, 0) // too long: not JSON, skipped
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}
