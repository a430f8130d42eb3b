module cdcharness/consumers/go-common/canon

go 1.21
