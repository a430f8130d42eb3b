module cdcharness/consumers/go-mysql/canal

go 1.21

require cdcharness/consumers/go-common/canon v0.0.0

replace cdcharness/consumers/go-common/canon => ../../go-common/canon
