import Foundation
import NIOCore
import Testing

/// A connection of the tests' shared HTTP client lost before its answer came ("I/O on closed
/// channel", or reset by the server): seen with the whole suite running, on a quiet machine too,
/// never in a test alone; cause not yet found (dropping the pool's idle connections before the
/// server's idle timeout did not end it). Tests that send many requests at once know it as an
/// intermittent issue; a wrong answer still fails them.
func isConnectionLostUnderLoad(_ issue: Issue) -> Bool {
    if (issue.error as? ChannelError) == .ioOnClosedChannel { return true }
    if let error = issue.error as? IOError, error.errnoCode == ECONNRESET { return true }
    return false
}
