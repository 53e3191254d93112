/// The name IntervalPro writes as the creator of the files it exports (a FIT file's
/// product_name, a TCX file's `<Creator>`), by which it knows them when they come back.
public enum ProgramName {
    public static let creator = "IntervalPro"
}
