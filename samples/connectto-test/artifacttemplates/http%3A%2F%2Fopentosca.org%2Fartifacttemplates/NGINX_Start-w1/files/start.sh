#!/usr/bin/env bash

sudo service nginx start
