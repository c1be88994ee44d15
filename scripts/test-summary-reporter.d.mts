/** The suite's summary reporter (node:test custom reporter): one JSON document from the run's events. */
export default function summaryReporter(source: AsyncIterable<unknown>): AsyncGenerator<string, void, unknown>;
