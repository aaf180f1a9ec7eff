package install

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Windows reparse point constants (winnt.h), here so that the encoding
// below builds, and is tested, on every system.
const (
	ioReparseTagMountPoint        = 0xA0000003
	maximumReparseDataBufferSize  = 16 * 1024
	reparseDataBufferHeaderLength = 8 // ReparseTag, ReparseDataLength, Reserved
)

// mountPointReparseBuffer returns the REPARSE_DATA_BUFFER that
// FSCTL_SET_REPARSE_POINT takes to make an empty folder a directory
// junction (a mount point) to target, an absolute path on a drive such as
// C:\dir (or \\?\C:\dir). The layout, all integers little-endian, is that
// of the REPARSE_DATA_BUFFER structure's MountPointReparseBuffer
// (learn.microsoft.com, "REPARSE_DATA_BUFFER structure"):
//
//	uint32  ReparseTag            IO_REPARSE_TAG_MOUNT_POINT, 0xA0000003
//	uint16  ReparseDataLength     bytes after these first 8: 8 + len(PathBuffer)
//	uint16  Reserved              0
//	uint16  SubstituteNameOffset  0, in bytes into PathBuffer
//	uint16  SubstituteNameLength  in bytes, without the terminating NUL
//	uint16  PrintNameOffset       SubstituteNameLength + 2
//	uint16  PrintNameLength       in bytes, without the terminating NUL
//	        PathBuffer            substitute name, NUL, print name, NUL (UTF-16)
//
// The substitute name is the NT path \??\C:\dir, which the file system
// follows; the print name is C:\dir, which tools show. This is what
// mklink /J writes. A junction cannot lead to another machine, so a UNC
// path (\\server\share) is refused, as is a relative path, invalid UTF-8,
// a NUL, or a path too long for the buffer.
func mountPointReparseBuffer(target string) ([]byte, error) {
	if !utf8.ValidString(target) || strings.ContainsRune(target, 0) {
		return nil, fmt.Errorf("junction target %q is not a valid path", target)
	}
	printName := strings.ReplaceAll(target, "/", `\`)
	if p, ok := strings.CutPrefix(printName, `\\?\`); ok {
		printName = p
	}
	if len(printName) < 3 || !isDriveLetter(printName[0]) || printName[1] != ':' || printName[2] != '\\' {
		return nil, fmt.Errorf("junction target %q is not an absolute path on a drive", target)
	}
	sub := utf16.Encode([]rune(`\??\` + printName))
	prn := utf16.Encode([]rune(printName))
	pathBuffer := 2 * (len(sub) + 1 + len(prn) + 1)
	dataLength := 8 + pathBuffer
	if reparseDataBufferHeaderLength+dataLength > maximumReparseDataBufferSize {
		return nil, errors.New("junction target is too long for a reparse point")
	}
	buf := make([]byte, 0, reparseDataBufferHeaderLength+dataLength)
	le := binary.LittleEndian
	buf = le.AppendUint32(buf, ioReparseTagMountPoint)
	buf = le.AppendUint16(buf, uint16(dataLength))
	buf = le.AppendUint16(buf, 0)
	buf = le.AppendUint16(buf, 0)
	buf = le.AppendUint16(buf, uint16(2*len(sub)))
	buf = le.AppendUint16(buf, uint16(2*len(sub)+2))
	buf = le.AppendUint16(buf, uint16(2*len(prn)))
	for _, u := range append(append(sub, 0), append(prn, 0)...) {
		buf = le.AppendUint16(buf, u)
	}
	return buf, nil
}

func isDriveLetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
