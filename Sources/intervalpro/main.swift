import IntervalProCLI

// Without the page's server, to start fast: the commands that serve the page go on in
// intervalpro-web (WebStack).
await IntervalProCommandLine.main(webStack: nil)
