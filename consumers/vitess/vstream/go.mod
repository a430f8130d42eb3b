module cdcharness/consumers/vitess/vstream

go 1.24

require cdcharness/consumers/go-common/canon v0.0.0

replace cdcharness/consumers/go-common/canon => ../../go-common/canon
