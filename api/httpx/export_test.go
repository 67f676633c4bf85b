package httpx

// ConnKeyForTest is the context key ConnContext keeps the connection under.
var ConnKeyForTest = connKey{}
