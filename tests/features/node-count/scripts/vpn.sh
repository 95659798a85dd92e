#!/bin/sh
echo vpn
