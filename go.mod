module github.com/agentadaptor/agentadaptor

go 1.26.5

require (
	github.com/klauspost/compress v1.20.4
	golang.org/x/sync v0.25.0
	golang.org/x/text v0.44.0
)
