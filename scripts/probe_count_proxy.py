# A counting TCP proxy: logs each HTTP request line and the bytes up/down of each exchange.
import asyncio, sys, json
LISTEN, TARGET = int(sys.argv[1]), int(sys.argv[2])
LOG = sys.argv[3]
async def pipe(reader, writer, rec, up):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if up:
                for m in (b"GET ", b"POST "):
                    if data.startswith(m):
                        line = data.split(b"\r\n", 1)[0].decode(errors="replace")
                        rec.append({"req": line, "up": 0, "down": 0})
            if rec:
                rec[-1]["up" if up else "down"] += len(data)
            writer.write(data)
            await writer.drain()
    except Exception:
        pass
    finally:
        try: writer.close()
        except Exception: pass
async def handle(cr, cw):
    sr, sw = await asyncio.open_connection("127.0.0.1", TARGET)
    rec = []
    await asyncio.gather(pipe(cr, sw, rec, True), pipe(sr, cw, rec, False))
    with open(LOG, "a") as f:
        for r in rec:
            f.write(json.dumps(r) + "\n")
async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", LISTEN)
    async with server:
        await server.serve_forever()
asyncio.run(main())
