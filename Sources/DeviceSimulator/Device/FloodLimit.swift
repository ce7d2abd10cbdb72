/// More than `frames` incoming frames within `window` make the device deaf for `silence`.
public struct FloodLimit: Sendable, Hashable {
    public var frames: Int
    public var window: Duration
    public var silence: Duration

    public init(frames: Int, window: Duration, silence: Duration) {
        self.frames = frames
        self.window = window
        self.silence = silence
    }
}
