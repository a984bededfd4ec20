// Package storage holds what Recall's two stores share: how a port method
// goes, step by step, and the decisions along the way, written once. Each
// engine (storage/sqlite, storage/postgres) keeps its SQL and its driver's
// calls and answers the small interfaces declared here; the contract both
// pass is storage/storetest.
//
// It imports the domain and small leaves only, never an engine.
package storage
