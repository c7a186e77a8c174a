// A server written with the official TypeScript SDK (low-level `Server`, so every field of
// tools/list is ours to set): a tool with a title, icons, an output schema and _meta that
// returns structured content; one that returns an image and a resource link with a title.
// Run with NODE_PATH=tests/thirdparty/.node/node_modules (installed by install.sh).
const { Server } = require("@modelcontextprotocol/sdk/server/index.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { CallToolRequestSchema, ListToolsRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

// A 1x1 red PNG.
const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const ICON = { src: "https://example.com/weather.png", mimeType: "image/png", sizes: ["48x48"] };

const server = new Server({ name: "ts-sdk-server", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: "weather",
      title: "Weather report",
      description: "The weather in a city",
      icons: [ICON],
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      outputSchema: {
        type: "object",
        properties: { city: { type: "string" }, celsius: { type: "number" } },
        required: ["city", "celsius"],
      },
      _meta: { "example.com/owner": "weather-team" },
    },
    {
      name: "picture",
      description: "A picture and a link to its source",
      inputSchema: { type: "object", properties: {} },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  if (request.params.name === "weather") {
    const report = { city: request.params.arguments.city, celsius: 21.5 };
    return { content: [{ type: "text", text: JSON.stringify(report) }], structuredContent: report };
  }
  if (request.params.name === "picture") {
    return {
      content: [
        { type: "image", data: PIXEL, mimeType: "image/png" },
        {
          type: "resource_link",
          uri: "https://example.com/pictures/red.png",
          name: "red.png",
          title: "A red pixel",
          mimeType: "image/png",
        },
      ],
    };
  }
  throw new Error(`unknown tool ${request.params.name}`);
});

server.connect(new StdioServerTransport());
