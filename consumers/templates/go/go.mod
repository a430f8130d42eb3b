module cdcharness/consumers/templates/go

go 1.21

require cdcharness/consumers/go-common/canon v0.0.0

// setup.sh copies canon beside this module in the cache dir
replace cdcharness/consumers/go-common/canon => ../canon
