import CoreMetrics

/// A fleet process's metrics: every metric made while a bot's task runs carries that bot as the label `bot` (a task
/// local, set where the fleet starts the bot, so the services report as in `start`, unchanged); what the process
/// itself reports carries `bot="-"`. Every series has the label, so one family never mixes labelled and unlabelled.
struct FleetMetricsFactory: MetricsFactory {
    /// The bot whose task is running, nil outside any.
    @TaskLocal static var bot: String?

    /// The backend the labelled metrics go to (Prometheus).
    let base: any MetricsFactory

    private func labelled(_ dimensions: [(String, String)]) -> [(String, String)] {
        dimensions.filter { $0.0 != "bot" } + [("bot", Self.bot ?? "-")]
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        base.makeCounter(label: label, dimensions: labelled(dimensions))
    }
    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        base.makeFloatingPointCounter(label: label, dimensions: labelled(dimensions))
    }
    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        base.makeMeter(label: label, dimensions: labelled(dimensions))
    }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        base.makeRecorder(label: label, dimensions: labelled(dimensions), aggregate: aggregate)
    }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        base.makeTimer(label: label, dimensions: labelled(dimensions))
    }
    func destroyCounter(_ handler: any CounterHandler) { base.destroyCounter(handler) }
    func destroyMeter(_ handler: any MeterHandler) { base.destroyMeter(handler) }
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) { base.destroyFloatingPointCounter(handler) }
    func destroyRecorder(_ handler: any RecorderHandler) { base.destroyRecorder(handler) }
    func destroyTimer(_ handler: any TimerHandler) { base.destroyTimer(handler) }
}
