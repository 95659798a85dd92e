#!/bin/sh
echo db
