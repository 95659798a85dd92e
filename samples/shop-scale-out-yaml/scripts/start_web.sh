#!/bin/sh
# Placeholder: the plan calls this through the management bus.
echo "start_web"
