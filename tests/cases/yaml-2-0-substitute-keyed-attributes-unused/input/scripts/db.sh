#!/bin/sh
echo "db on port $PORT for $CLIENT"
