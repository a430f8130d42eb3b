module cdcharness/consumers/go-mysql/raw-payload

go 1.21

require cdcharness/consumers/go-mysql/canon v0.0.0

replace cdcharness/consumers/go-mysql/canon => ../canon
