import Logging

/// Where this library's warnings and notices go: whoever runs it says how they are shown
/// (the command line bootstraps one handler that prints them on stderr); the library never
/// writes to stderr itself.
let logger = Logger(label: "intervalpro.launch")
