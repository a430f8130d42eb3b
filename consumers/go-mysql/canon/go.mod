module cdcharness/consumers/go-mysql/canon

go 1.21
