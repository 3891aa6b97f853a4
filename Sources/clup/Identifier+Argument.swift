import ArgumentParser
import CLupDomain

/// `--store 3`: a store id typed on the command line, positive or refused.
extension Identifier: ExpressibleByArgument {
    public init?(argument: String) {
        guard let value = Int64(argument), value > 0 else { return nil }
        self.init(rawValue: value)
    }
}
