module cdcharness/consumers/go-mysql/raw

go 1.21

require (
	cdcharness/consumers/go-common/canon v0.0.0
	github.com/go-mysql-org/go-mysql v1.7.0
	github.com/google/uuid v1.3.0
	github.com/siddontang/go-log v0.0.0-20180807004314-8d05993dda07
)

require (
	github.com/pingcap/errors v0.11.5-0.20210425183316-da1aaba5fb63 // indirect
	github.com/shopspring/decimal v0.0.0-20180709203117-cd690d0c9e24 // indirect
	github.com/siddontang/go v0.0.0-20180604090527-bdc77568d726 // indirect
	go.uber.org/atomic v1.7.0 // indirect
)

replace cdcharness/consumers/go-common/canon => ../../go-common/canon
