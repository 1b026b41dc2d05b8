"""The baseline: a bare Falcon ASGI route returning a small JSON body, nothing else."""
import falcon.asgi


class Bare:
    async def on_get(self, req, resp):
        resp.media = {"ok": True}


app = falcon.asgi.App()
app.add_route("/bare", Bare())
