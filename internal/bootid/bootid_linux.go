package bootid

import "os"

// read returns the kernel's boot id, a random UUID drawn at boot.
func read() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return string(b)
}
