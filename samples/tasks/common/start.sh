#!/bin/bash
# Start command of the sample templates: like the recipe's BBS start script, but the server is the stand-in.
cd /testbed
export BBS_HOST=0.0.0.0
export BBS_PORT=31000
exec python3 /opt/swegym-sample/health_server.py > /tmp/blackbox-server.log 2>&1
