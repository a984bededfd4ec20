package storage

// DefaultSearchLimit applies when a search asks for no limit.
const DefaultSearchLimit = 10
