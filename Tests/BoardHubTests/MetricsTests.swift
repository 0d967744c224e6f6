import Testing

@testable import BoardMetrics

/// The registry's text exposition format (Prometheus 0.0.4), line by line.
@Suite struct MetricsTests {
    enum Color: String, MetricLabels, CaseIterable {
        case red, green
        static let names = ["color"]
    }

    /// Label values as a client might have chosen them, were they ever allowed in a label.
    struct Text: MetricLabels {
        var value: String
        static let names = ["text"]
        static let initial: [Text] = []
        var values: [String] { [value] }
    }

    struct Pair: MetricLabels {
        var a: String
        var b: String
        static let names = ["a", "b"]
        static let initial: [Pair] = []
        var values: [String] { [a, b] }
    }

    @Test func aCounterHasHelpTypeAndEverySeriesFromZero() {
        let metrics = Metrics()
        let counter = metrics.counter("test_paints_total", "Paints, by color.", labels: Color.self)
        counter.add(.green, 3)
        #expect(
            metrics.render() == """
                # HELP test_paints_total Paints, by color.
                # TYPE test_paints_total counter
                test_paints_total{color="green"} 3
                test_paints_total{color="red"} 0

                """)
    }

    @Test func aGaugeWithoutLabelsIsOneBareSample() {
        let metrics = Metrics()
        let gauge = metrics.gauge("test_queue_bytes", "Bytes queued.")
        gauge.set(4096)
        let fraction = metrics.gauge("test_ratio", "A ratio.")
        fraction.set(NoLabels(), 0.25)
        #expect(
            metrics.render() == """
                # HELP test_queue_bytes Bytes queued.
                # TYPE test_queue_bytes gauge
                test_queue_bytes 4096
                # HELP test_ratio A ratio.
                # TYPE test_ratio gauge
                test_ratio 0.25

                """)
    }

    @Test func aHistogramHasCumulativeBucketsAnInfBucketASumAndACount() {
        let metrics = Metrics()
        let histogram = metrics.histogram("test_wait_seconds", "Waits.", buckets: [0.25, 0.5, 1])
        for value in [0.125, 0.25, 0.375, 3] { histogram.observe(value) }
        #expect(
            metrics.render() == """
                # HELP test_wait_seconds Waits.
                # TYPE test_wait_seconds histogram
                test_wait_seconds_bucket{le="0.25"} 2
                test_wait_seconds_bucket{le="0.5"} 3
                test_wait_seconds_bucket{le="1"} 3
                test_wait_seconds_bucket{le="+Inf"} 4
                test_wait_seconds_sum 3.75
                test_wait_seconds_count 4

                """)
    }

    @Test func aLabelledHistogramPutsLeAfterItsOwnLabels() {
        let metrics = Metrics()
        let histogram = metrics.histogram("test_hold_seconds", "Holds.", buckets: [1], labels: Color.self)
        histogram.observe(.red, 2)
        let text = metrics.render()
        #expect(text.contains(#"test_hold_seconds_bucket{color="red",le="1"} 0"#))
        #expect(text.contains(#"test_hold_seconds_bucket{color="red",le="+Inf"} 1"#))
        #expect(text.contains(#"test_hold_seconds_sum{color="red"} 2"#))
        #expect(text.contains(#"test_hold_seconds_count{color="red"} 1"#))
        #expect(text.contains(#"test_hold_seconds_count{color="green"} 0"#))
    }

    @Test(arguments: [
        (#"back\slash"#, #"back\\slash"#),
        (#"a "quote""#, #"a \"quote\""#),
        ("new\nline", #"new\nline"#),
        ("\r\n", "\r\\n"),
        ("plain ü", "plain ü"),
    ])
    func labelValuesEscapeBackslashQuoteAndLineFeed(_ raw: String, _ rendered: String) {
        let metrics = Metrics()
        metrics.gauge("test_texts", "Texts.", labels: Text.self).set(Text(value: raw), 1)
        #expect(metrics.render().contains("test_texts{text=\"\(rendered)\"} 1\n"))
    }

    @Test func helpEscapesBackslashAndLineFeedButNotQuotes() {
        let metrics = Metrics()
        _ = metrics.counter("test_x_total", "Two\nlines, a \\ and \"quotes\".")
        #expect(metrics.render().hasPrefix(#"# HELP test_x_total Two\nlines, a \\ and "quotes"."# + "\n"))
    }

    @Test func seriesAreSortedByLabelValuesAndSeveralLabelsAreCommaSeparated() {
        let metrics = Metrics()
        let counter = metrics.counter("test_pairs_total", "Pairs.", labels: Pair.self)
        counter.add(Pair(a: "y", b: "1"))
        counter.add(Pair(a: "x", b: "2"), 2)
        counter.add(Pair(a: "x", b: "1"))
        #expect(
            metrics.render().hasSuffix(
                """
                test_pairs_total{a="x",b="1"} 1
                test_pairs_total{a="x",b="2"} 2
                test_pairs_total{a="y",b="1"} 1

                """))
    }

    @Test(arguments: [
        (0.0, "0"), (3.0, "3"), (-2.0, "-2"), (0.005, "0.005"), (1e-05, "1e-05"), (2.5, "2.5"),
        (Double.infinity, "+Inf"), (-Double.infinity, "-Inf"), (Double.nan, "NaN"), (1e20, "1e+20"),
    ])
    func numbersAreWrittenAsPrometheusParsesThem(_ value: Double, _ text: String) {
        #expect(MetricsText.format(value) == text)
    }

    @Test func aGaugeFamilyCanForgetItsSeries() {
        let metrics = Metrics()
        let gauge = metrics.gauge("test_top", "Top.", labels: Text.self)
        gauge.set(Text(value: "a"), 1)
        gauge.removeAll()
        #expect(metrics.render() == "# HELP test_top Top.\n# TYPE test_top gauge\n")
    }

    @Test func aHistogramValueKeptElsewhereReplacesTheSeries() {
        let metrics = Metrics()
        let histogram = metrics.histogram("test_batch", "Batches.", buckets: [1, 10])
        var elsewhere = HistogramValue(bounds: [1, 10])
        elsewhere.observe(5)
        elsewhere.observe(50)
        histogram.replace(NoLabels(), with: elsewhere)
        #expect(histogram.value.count == 2 && histogram.value.overflow == 1 && histogram.value.sum == 55)
        #expect(metrics.render().contains("test_batch_bucket{le=\"10\"} 1\ntest_batch_bucket{le=\"+Inf\"} 2\n"))
    }

    @Test func nanIsNotObserved() {
        var value = HistogramValue(bounds: [1])
        value.observe(.nan)
        #expect(value.count == 0 && value.sum == 0)
    }
}
