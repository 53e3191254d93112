import IntervalProCLI

// `intervalpro` with the page's server: the commands that serve the page go on here (WebStack).
await IntervalProCommandLine.main(webStack: HummingbirdStack())
